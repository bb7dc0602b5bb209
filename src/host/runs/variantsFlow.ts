// "Try Variants from Here…" on the host: the questions (the prompt; how many tries of the session's
// model, or which of pi's models, one try each; an optional check command, the last one offered
// again), then the run started through the VariantsService, the variants view opened on it, and a
// progress notification while it runs whose Cancel cancels every variant. Refused in Restricted Mode
// (it starts pi and the user's check command) and for a read-only session.
import * as vscode from 'vscode';
import type { Session } from '../../core/session/session.js';
import type { ModelChoice, ModelRef } from '../../protocol.js';
import { MAX_VARIANTS } from '../../core/variants/index.js';
import { counted } from '../../shared/countWords.js';
import type { SessionActions } from '../panels/sessionActions.js';
import { showError } from '../platform/log.js';
import type { AskService } from './askService.js';
import { VariantsRunState } from './variantsRunState.js';
import type { VariantsService } from './variantsService.js';

export interface VariantsContext {
  session: Session;
  file: string;
  actions: Pick<SessionActions, 'need' | 'checkWritable'>;
  /** pi's models, for the multi-pick. */
  ask: Pick<AskService, 'models'>;
  variants: VariantsService;
  /** The last check command (workspace state). */
  lastCheck: { get(): string; set(v: string): Thenable<void> };
  /** What the node is, in a title's words. */
  describe(id: string): Promise<string>;
  /** Opens the variants view on a run. */
  show(state: VariantsRunState): void;
}

const RESTRICTED =
  'Try variants is not available in Restricted Mode (it starts pi and your check command): trust this workspace first.';

type HowItem = vscode.QuickPickItem & { count?: number; pick?: true };
type ModelItem = vscode.QuickPickItem & { model: ModelRef };

/**
 * Asks, then starts the run. Resolves once it has started (with its state; `finished` settles when
 * every variant has ended), or `undefined` when the user cancelled a question.
 */
export async function tryVariantsFrom(
  cx: VariantsContext,
  id: string,
  offered?: string,
): Promise<{ state: VariantsRunState; finished: Promise<void> } | undefined> {
  cx.actions.need(id);
  if (!vscode.workspace.isTrusted) throw new Error(RESTRICTED);
  cx.actions.checkWritable();
  const where = await cx.describe(id);
  const prompt = await vscode.window.showInputBox({
    title: `Try variants from ${where} (1/3)`,
    prompt: 'Each variant is a fork of the session from this node, run by its own pi in its own copy of the code.',
    placeHolder: 'Your prompt',
    ...(offered ? { value: offered } : {}),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Write a prompt for pi.'),
  });
  if (prompt === undefined || !prompt.trim()) return undefined;
  const how = await chooseHow(cx, where);
  if (!how) return undefined;
  const last = cx.lastCheck.get();
  const check = await vscode.window.showInputBox({
    title: `Try variants from ${where} (3/3)`,
    prompt: 'A check run in each variant’s folder after its turn (your shell, e.g. npm test); leave empty for none.',
    placeHolder: 'Check command (optional)',
    value: last,
    ignoreFocusOut: true,
  });
  if (check === undefined) return undefined;
  await cx.lastCheck.set(check.trim());
  const size = how.models?.length ?? how.count ?? 2;
  const state = new VariantsRunState(
    { prompt, node: where, ...(check.trim() ? { check: check.trim() } : {}) },
    { file: cx.file, entryId: id, cwd: String(cx.session.header.cwd ?? '') },
    size,
  );
  const run = await cx.variants.start({
    session: cx.session,
    file: cx.file,
    entryId: id,
    prompt,
    ...(how.models ? { models: how.models } : { count: size }),
    ...(check.trim() ? { check: check.trim() } : {}),
    onProgress: state.progress,
  });
  state.attach(run);
  cx.show(state);
  const finished = follow(cx.session, state, size);
  return { state, finished };
}

/** How many tries of the session's model, or which of pi's models (a multi-pick). */
async function chooseHow(
  cx: VariantsContext,
  where: string,
): Promise<{ count?: number; models?: ModelRef[] } | undefined> {
  const items: HowItem[] = [2, 3, 4].map((n) => ({
    label: `$(copy) ${n} variants`,
    description: "each with the session's model",
    count: n,
  }));
  items.push({ label: "$(list-selection) Pick pi's models…", description: 'one variant per model', pick: true });
  const how = await vscode.window.showQuickPick(items, {
    title: `Try variants from ${where} (2/3)`,
    placeHolder: 'How many variants, or which models',
    ignoreFocusOut: true,
  });
  if (!how) return undefined;
  if (!how.pick) return { count: how.count };
  const cts = new vscode.CancellationTokenSource();
  try {
    const list = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "pi Tree: pi's models" },
      () => cx.ask.models(cx.session, cts.token),
    );
    if (!list.models.length) throw new Error('pi lists no models: set one up in pi first.');
    const isDefault = (m: ModelChoice) => list.defaultModel?.provider === m.provider && list.defaultModel.id === m.id;
    const modelItems: ModelItem[] = list.models.map((m) => ({
      label: m.name ?? m.id,
      description: `${m.provider}/${m.id}${isDefault(m) ? ' (default)' : ''}`,
      model: { provider: m.provider, id: m.id },
    }));
    const picked = await vscode.window.showQuickPick(modelItems, {
      title: `Try variants from ${where} (2/3)`,
      placeHolder: `The models to try (one variant each, at most ${MAX_VARIANTS})`,
      canPickMany: true,
      ignoreFocusOut: true,
    });
    if (!picked?.length) return undefined;
    if (picked.length > MAX_VARIANTS) throw new Error(`Pick at most ${MAX_VARIANTS} models.`);
    return { models: picked.map((p) => p.model) };
  } finally {
    cts.dispose();
  }
}

/** The notification while the run goes on: how many variants ended; its Cancel cancels them all. */
function follow(session: Session, state: VariantsRunState, size: number): Promise<void> {
  const run = state.run!;
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `pi: ${counted(size, 'variant')}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => run.cancel());
        const say = () => progress.report({ message: `${state.finished} of ${size} ended` });
        say();
        const off = state.on((e) => {
          if (e.kind === 'variant') say();
        });
        try {
          await run.done;
        } finally {
          off();
          // The variants are forks of the session: its family shows them once the files are read again.
          await session.refresh().catch(() => undefined);
        }
      },
    ),
  ).then(
    () => undefined,
    (e: unknown) => {
      // (e.g. a model pi does not have: nothing was made) The view says so in each column too.
      state.failAll(e instanceof Error ? e.message : String(e));
      void showError('pi-tree: the variants run failed', e);
    },
  );
}
