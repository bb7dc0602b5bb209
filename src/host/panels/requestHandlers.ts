// What the host does for each request a tree webview sends: one handler per request kind, checked
// against the protocol's union so a kind without a handler does not compile. Requests arrive validated
// (webviewGate.ts); entry ids are checked against the session here before anything is written.
import * as vscode from 'vscode';
import { listContext } from '../../core/context/contextView.js';
import type { Session } from '../../core/session/session.js';
import type { Replies, RequestBody, RequestHandlers, RequestKind } from '../../protocol.js';
import { dispatch } from '../../shared/messaging.js';
import { branchFilesReply, changesReply, exportBranchTo, openChange } from '../compare/codeChangeActions.js';
import type { CompareServices } from '../compare/compareServices.js';
import type { SummaryService } from '../summaries/summaryService.js';
import { entryDetails } from './entryDetails.js';
import { moveHere } from './moveHere.js';
import { codeAt, planCode, planTally, planWords } from '../../core/checkpoints/index.js';
import { diffStates } from '../../core/checkpoints/index.js';
import type { CodeRestore } from '../checkpoints/codeRestore.js';
import type { Cancelled, NewSession, SessionActions } from './sessionActions.js';
import type { BeforePi } from '../platform/piTerminal.js';
import { askFromHere, cancelAsk, listModels, type AskSlot } from '../runs/askFlow.js';
import type { AskService } from '../runs/askService.js';
import type { TryVariants } from '../runs/variantsHost.js';

export interface HandlerContext {
  session: Session;
  file: string;
  actions: SessionActions;
  summaries: SummaryService;
  continueInPi: (file: string, text?: string, before?: BeforePi) => Promise<void>;
  /** A cancellation source for request `seq`, cancelled when the panel closes. */
  cancellation: (seq: number) => vscode.CancellationTokenSource;
  compareServices: CompareServices;
  /** Opens the session a family link of this tree leads to. */
  openLink: (token: string) => Promise<void>;
  /** Checkpoints: the code at a node, restores, undo. */
  code: CodeRestore;
  /** Ask from here: pi's turns (runs/askService.ts) and this tree's turn in flight. */
  ask: AskService;
  asking: AskSlot;
  /** Try variants from a node (runs/variantsHost.ts). */
  tryVariants: TryVariants;
}

/** Runs `work` under a cancellable progress notification tied to request `seq`. */
function withProgress<T>(
  cx: HandlerContext,
  seq: number,
  title: string,
  work: (token: vscode.CancellationToken) => Promise<T>,
): Thenable<T> {
  const cts = cx.cancellation(seq);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    (_p, token) => {
      token.onCancellationRequested(() => cts.cancel());
      return work(cts.token);
    },
  );
}

export const requestHandlers: RequestHandlers<HandlerContext> = {
  async getEntry(b, _seq, cx) {
    cx.actions.need(b.id);
    return entryDetails(cx.session, b.id);
  },
  async getContext(b, _seq, cx) {
    if (b.id !== null) cx.actions.need(b.id);
    return listContext(cx.session, b.id);
  },
  moveTo: (b, _seq, cx) => moveHere(cx, b.id),
  fork: async (b, _seq, cx) => forWebview(await cx.actions.fork(b.id)),
  clone: async (b, _seq, cx) => forWebview(await cx.actions.clone(b.id)),
  setLabel: (b, _seq, cx) => cx.actions.setLabel(b.id, b.label),
  rename: (b, _seq, cx) => cx.actions.rename(b.name),
  async copyText(b, _seq, cx) {
    const text = await cx.actions.copyableText(b.id);
    await vscode.env.clipboard.writeText(text);
    return { copied: text.length };
  },
  async continueInPi(b, _seq, cx) {
    const id = b.id;
    if (id === undefined) {
      await cx.continueInPi(cx.file, b.text);
      return {};
    }
    // The leaf moves only once pi is known to start: without pi the session stays as it was.
    let r: Replies['moveTo'] & { cancelled?: boolean } = { leafId: cx.session.leafId, moved: false, cancelled: true };
    await cx.continueInPi(cx.file, b.text, async () => {
      r = await cx.actions.moveTo(id);
      return r.cancelled ? undefined : { text: b.text ?? r.editorText };
    });
    return r;
  },
  async summaryPreview(b, seq, cx) {
    if (b.id !== null) cx.actions.need(b.id);
    // (a preview is the first step of a write: nothing runs, pi or a model, for a session that cannot take it)
    cx.actions.checkWritable();
    const { leaf } = await cx.actions.piTarget(b.id);
    return withProgress(cx, seq, 'Summarizing the branch being left…', (token) =>
      cx.summaries.previewBranch(cx.session, b.id, leaf, b.focus, token),
    );
  },
  async moveWithSummary(b, _seq, cx) {
    if (b.id !== null) cx.actions.need(b.id);
    // A running pi writes the reviewed summary itself (pi's hook takes the text) and moves at once.
    const viaPi = await cx.actions.moveWithSummaryViaPi(b.id, b.summary, cx.summaries.previewDetails(b.previewId));
    if (viaPi) {
      if (b.previewId) cx.summaries.cancel(b.previewId);
      return viaPi;
    }
    const { leaf, editorText } = await cx.actions.piTarget(b.id);
    const ok = await cx.actions.guard('move the leaf');
    if (ok === false) return { cancelled: true };
    if (ok === 'fork') return cx.actions.forkInstead(leaf);
    const r = await cx.summaries.commitBranch(cx.session, b.id, leaf, b.summary, b.previewId);
    return { leafId: r.leafId, editorText, moved: true };
  },
  async cancelPreview(b, _seq, cx) {
    cx.summaries.cancel(b.previewId);
    return {};
  },
  async compactPreview(b, seq, cx) {
    // (nothing runs, pi or a model, for a session that cannot take the compaction)
    cx.actions.checkWritable();
    return withProgress(cx, seq, 'Compacting the context…', (token) =>
      cx.summaries.previewCompaction(cx.session, b.focus, token),
    );
  },
  async compactCommit(b, _seq, cx) {
    cx.actions.checkWritable();
    if (!cx.summaries.writtenAlready(b.previewId)) {
      // pi-tree writes it: never under a pi that runs the session now (pi would not see it), and a
      // session pi seems to be writing asks first.
      if (await cx.actions.piRunning()) {
        cx.summaries.cancel(b.previewId);
        throw new Error(
          'A pi runs this session now, so nothing was written (pi would not see it): compact again, and pi itself does it.',
        );
      }
      if ((await cx.actions.guard('compact the session', false)) !== true) return { cancelled: true };
    }
    return cx.summaries.commitCompaction(cx.session, b.previewId, b.summary);
  },
  async setupSummaryModel() {
    // The settings that choose and configure the summary model; the open trees hear when they change.
    await vscode.commands.executeCommand('workbench.action.openSettings', 'piTree.summary');
    return {};
  },
  async getChanges(b, _seq, cx) {
    cx.actions.need(b.id);
    return changesReply(cx.session, b.id);
  },
  async openChange(b, _seq, cx) {
    cx.actions.need(b.id);
    await openChange(cx.session, b.id, b.index, cx.compareServices.docs);
    return {};
  },
  async branchFiles(b, _seq, cx) {
    cx.actions.need(b.id);
    return branchFilesReply(cx.session, b.id);
  },
  async compare(b, _seq, cx) {
    cx.actions.need(b.id);
    const other = b.other ?? cx.session.leafId;
    if (other === null) throw new Error('The session has no current leaf to compare with.');
    cx.actions.need(other);
    if (other === b.id) throw new Error('Pick two different entries to compare.');
    cx.compareServices.compare({ file: cx.file, id: b.id }, { file: cx.file, id: other });
    return {};
  },
  async exportBranch(b, _seq, cx) {
    cx.actions.need(b.id);
    return exportBranchTo(cx.session, b.id, b.to);
  },
  async setHidden(b, _seq, cx) {
    cx.actions.need(b.id);
    return { hidden: await cx.compareServices.hidden.set(cx.session.header.id, b.id, b.hidden) };
  },
  async openLink(b, _seq, cx) {
    await cx.openLink(b.token);
    return {};
  },
  async codeState(b, _seq, cx) {
    cx.actions.need(b.id);
    await cx.code.settled();
    const sc = cx.code.code(cx.session);
    const state = await codeAt(sc, b.id);
    const changes = await diffStates(sc, state, 'now');
    const skipped = state.base?.skipped;
    // The restore's own count beside the diff's, so the pane and Move here say the same numbers.
    const plan = changes.length ? await planCode(sc, b.id).catch(() => undefined) : undefined;
    const t = plan && planTally(plan);
    return {
      ...(t
        ? { restore: { words: planWords(t), files: t.files, kept: Math.max(0, changes.length - t.files - t.kept) } }
        : {}),
      how: state.how,
      files: changes.map((c) => ({ path: c.key, status: c.status })),
      notes: state.notes,
      ...(skipped
        ? { skipped: { count: skipped.count, paths: skipped.files.slice(0, 5).map((f) => `${f.path} (${f.why})`) } }
        : {}),
    };
  },
  async openCodeDiff(b, _seq, cx) {
    cx.actions.need(b.id);
    if (b.other !== undefined) cx.actions.need(b.other);
    const changes = await cx.code.showDiff(
      cx.session,
      b.id,
      b.other !== undefined ? { session: cx.session, id: b.other } : undefined,
    );
    return { files: changes.length };
  },
  async restoreCode(b, _seq, cx) {
    cx.actions.need(b.id);
    cx.actions.checkWritable();
    return { restored: await cx.code.restoreCode(cx.session, cx.file, b.id) };
  },
  async undoRestore(b, _seq, cx) {
    await cx.code.undo(cx.session, cx.file, !!b.redo);
    return {};
  },
  askFrom: (b, _seq, cx) => askFromHere(cx, b),
  cancelAsk: async (_b, _seq, cx) => cancelAsk(cx),
  listModels: (_b, seq, cx) => listModels(cx, cx.cancellation(seq).token),
  tryVariants: async (b, _seq, cx) => ({
    started: await cx.tryVariants({ session: cx.session, file: cx.file, actions: cx.actions }, b.id, b.prompt),
  }),
};

/** What the webview hears of a new session: its name, never its path. */
function forWebview(r: Cancelled | NewSession): Cancelled | { fileName: string; text?: string } {
  return 'cancelled' in r ? r : { fileName: r.fileName, ...(r.text !== undefined ? { text: r.text } : {}) };
}

/** Dispatches a validated request body to its handler. */
export function handleRequest(body: RequestBody, seq: number, cx: HandlerContext): Promise<Replies[RequestKind]> {
  return dispatch<RequestBody, Replies, HandlerContext>(requestHandlers, body, seq, cx);
}
