// What each request does, with pi's own operations: navigateTree (pi's summary when asked), fork,
// setLabel, setSessionName, compact, and ask (navigateTree, setModel, sendUserMessage). Every change waits
// until pi is idle (up to the request's waitMs) and checks the request's `ifLeaf` after waiting, right
// before acting.
import { existsSync } from 'node:fs';
import type { ExtensionCommandContext, ExtensionContext } from '@earendil-works/pi-coding-agent';
import {
  BRIDGE_COMMAND,
  type AskData,
  type BridgeRequest,
  type CompactData,
  type ForkData,
  type GotoData,
  type LabelData,
  type NameData,
  type SummaryPreviewData,
} from '../core/piClient/protocol.js';
import { loadPi, type BridgeSession } from './bridgeSession.js';
import { BridgeFailure } from './server.js';
import { codeUndo, restoreCode } from './codeOps.js';

type Entry = {
  id: string;
  parentId: string | null;
  type: string;
  message?: { role?: string; content?: unknown };
  content?: unknown;
};

function entryOf(ctx: ExtensionContext, id: string): Entry {
  const e = ctx.sessionManager.getEntry(id) as Entry | undefined;
  if (!e) throw new BridgeFailure('not-found', `entry ${id} is not in this session`);
  return e;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (b): b is { type: 'text'; text: string } =>
        !!b &&
        typeof b === 'object' &&
        (b as { type?: unknown }).type === 'text' &&
        typeof (b as { text?: unknown }).text === 'string',
    )
    .map((b) => b.text)
    .join('');
}

/** pi's rule: a user (or custom) message as target puts the leaf on its parent and hands its text back. */
function landing(e: Entry): { leaf: string | null; editorText?: string } {
  if (e.type === 'message' && e.message?.role === 'user')
    return { leaf: e.parentId, editorText: textOf(e.message.content) };
  if (e.type === 'custom_message') return { leaf: e.parentId, editorText: textOf(e.content) };
  return { leaf: e.id };
}

/** Runs a change. `cmd`: the command context when called from /tree-bridge typed in pi (else dispatched). */
export async function mutate(live: BridgeSession, req: BridgeRequest, cmd?: ExtensionCommandContext): Promise<unknown> {
  const deadline = Date.now() + ((req as { waitMs?: number }).waitMs ?? 0);
  const ifLeaf = (req as { ifLeaf?: string | null }).ifLeaf;
  /** Runs `fn` in a command context of pi's (navigation and session switches need one), once pi is idle and the leaf is as the caller saw it. */
  const whenIdle = <T>(fn: (ctx: ExtensionCommandContext) => Promise<T>) => {
    const run = async (ctx: ExtensionCommandContext) => {
      await live.waitIdle(deadline, ctx);
      live.checkLeaf(ifLeaf, ctx);
      return fn(ctx);
    };
    return cmd ? run(cmd) : live.viaCommand(run);
  };
  switch (req.op) {
    case 'goto': {
      const r = req as BridgeRequest<'goto'>;
      entryOf(live.ctx, r.targetId);
      return whenIdle((ctx) => goto(live, ctx, r));
    }
    case 'fork':
    case 'clone': {
      const r = req as { entryId?: string; position?: 'before' | 'at' };
      const position = req.op === 'clone' ? 'at' : (r.position ?? 'before');
      const entryId = r.entryId ?? live.ctx.sessionManager.getLeafId();
      if (!entryId) throw new BridgeFailure('bad-args', 'the session is empty: there is nothing to clone');
      const e = entryOf(live.ctx, entryId);
      if (position === 'before' && !(e.type === 'message' && e.message?.role === 'user')) {
        throw new BridgeFailure(
          'bad-args',
          `entry ${entryId} is not a user message: a fork starts before a user message (clone copies up to any entry)`,
        );
      }
      return whenIdle((ctx) => fork(live, ctx, entryId, position));
    }
    case 'label': {
      const r = req as BridgeRequest<'label'>;
      entryOf(live.ctx, r.entryId);
      await live.waitIdle(deadline);
      live.checkLeaf(ifLeaf);
      return label(live, r);
    }
    case 'name': {
      await live.waitIdle(deadline);
      live.checkLeaf(ifLeaf);
      return name(live, req as BridgeRequest<'name'>);
    }
    case 'compact': {
      await live.waitIdle(deadline);
      live.checkLeaf(ifLeaf);
      return compact(live, req as BridgeRequest<'compact'>);
    }
    case 'restoreCode': {
      const r = req as BridgeRequest<'restoreCode'>;
      entryOf(live.ctx, r.targetId);
      return whenIdle((ctx) => restoreCode(live, ctx, r));
    }
    case 'codeUndo': {
      const r = req as BridgeRequest<'codeUndo'>;
      return whenIdle((ctx) => codeUndo(live, ctx, r));
    }
    case 'ask': {
      const r = req as BridgeRequest<'ask'>;
      entryOf(live.ctx, r.targetId);
      refuseCommand(live, r.prompt);
      const sent = await whenIdle((ctx) => ask(live, ctx, r));
      // Answered once pi's turn has started (its end comes as askEnded): every request stays short.
      await live.asks.started(sent.askId, ASK_START_MS);
      return sent;
    }
    default:
      throw new BridgeFailure('unknown-op', `unknown op ${req.op}`);
  }
}

async function goto(live: BridgeSession, ctx: ExtensionCommandContext, r: BridgeRequest<'goto'>): Promise<GotoData> {
  const sm = ctx.sessionManager;
  const target = entryOf(ctx, r.targetId);
  const previousLeafId = sm.getLeafId();
  const summarize = !!(r.summarize || r.summary);
  live.injected = r.summary ? { targetId: r.targetId, text: r.summary.text, details: r.summary.details } : undefined;
  live.lastTree = undefined;
  let result: { cancelled: boolean };
  try {
    result = await ctx.navigateTree(r.targetId, {
      summarize,
      customInstructions: r.customInstructions,
      replaceInstructions: r.replaceInstructions,
      label: r.label?.trim() || undefined,
    });
  } finally {
    live.injected = undefined;
  }
  if (result.cancelled)
    throw new BridgeFailure(
      'cancelled',
      'pi cancelled the move (an extension, or an aborted summary); nothing was written',
    );
  const tree = live.lastTree as { summaryId?: string; leafRecordId?: string } | undefined;
  const { editorText } = landing(target);
  return {
    moved: tree !== undefined,
    previousLeafId,
    leafId: sm.getLeafId(),
    summaryId: tree?.summaryId,
    leafRecordId: tree?.leafRecordId,
    editorText,
  };
}

/** How long pi may take from the prompt to its run's start (input hooks, its auth check). */
const ASK_START_MS = 30_000;

/**
 * A prompt naming one of pi's extension commands would run that command, not a turn (ask sends the
 * prompt as text typed in pi is sent: prompt templates and skills expand, commands run): refused.
 */
function refuseCommand(live: BridgeSession, prompt: string): void {
  const m = /^\/(\S+)/.exec(prompt);
  if (!m) return;
  const name = m[1];
  if (
    name === BRIDGE_COMMAND ||
    name.startsWith(`${BRIDGE_COMMAND}:`) ||
    live.pi.getCommands().some((c) => c.source === 'extension' && c.name === name)
  ) {
    throw new BridgeFailure('bad-args', `"/${name}" is a pi command, not a question: run it in pi; nothing was done`);
  }
}

type PiModel = NonNullable<ExtensionContext['model']>;

/** The model `want` names among pi's available ones (pi's set_model looks there, and says these words). */
function availableModel(ctx: ExtensionContext, want: { provider: string; id: string }): PiModel {
  const m = ctx.modelRegistry.getAvailable().find((x) => x.provider === want.provider && x.id === want.id);
  if (!m) throw new BridgeFailure('bad-args', `Model not found: ${want.provider}/${want.id}`);
  return m;
}

/**
 * Ask from a node in the running pi: checks first (the model, its credentials), then pi's leaf moved as
 * its /tree moves (a user message: to its parent, so the prompt goes beside it; the parent itself is
 * the target then, so pi puts no old text into its editor), the model set, and the prompt sent.
 */
async function ask(live: BridgeSession, ctx: ExtensionCommandContext, r: BridgeRequest<'ask'>): Promise<AskData> {
  // (taken first: a second ask that got past the wait for idle meanwhile is refused before it moves anything)
  const { askId } = live.asks.begin();
  try {
    const sm = ctx.sessionManager;
    const model = r.model ? availableModel(ctx, r.model) : ctx.model;
    if (!model)
      throw new BridgeFailure(
        'failed',
        'No model selected: choose one in pi (/model), or ask with a model; nothing was done',
      );
    if (!r.model && !ctx.modelRegistry.getAvailable().some((x) => x.provider === model.provider && x.id === model.id)) {
      throw new BridgeFailure('failed', `No API key found for ${model.provider}; nothing was done`);
    }
    const target = entryOf(ctx, r.targetId);
    const { leaf } = landing(target);
    const previousLeafId = sm.getLeafId();
    live.lastTree = undefined;
    if (leaf !== previousLeafId) {
      const parent = leaf === null ? undefined : (sm.getEntry(leaf) as Entry | undefined);
      const via = parent && landing(parent).leaf === parent.id ? parent.id : r.targetId;
      const moved = await ctx.navigateTree(via, {});
      if (moved.cancelled)
        throw new BridgeFailure('cancelled', 'pi cancelled the move (an extension); nothing was asked');
      if (sm.getLeafId() !== leaf)
        throw new BridgeFailure(
          'failed',
          `pi's leaf is ${sm.getLeafId() ?? '(empty)'} after the move, not ${leaf ?? '(empty)'}; nothing was asked`,
        );
    }
    const leafRecordId = (live.lastTree as { leafRecordId?: string } | undefined)?.leafRecordId;
    if (r.model && !(ctx.model?.provider === model.provider && ctx.model?.id === model.id)) {
      if (!(await live.pi.setModel(model)))
        throw new BridgeFailure(
          'failed',
          `No API key for ${model.provider}/${model.id}; pi's leaf was moved, nothing was asked`,
        );
    }
    const fromLeafId = sm.getLeafId();
    // As if typed in pi: prompt templates and skills expand (commands were refused above).
    live.pi.sendUserMessage(r.prompt, { expandPromptTemplates: true });
    return {
      askId,
      previousLeafId,
      fromLeafId,
      ...(leafRecordId ? { leafRecordId } : {}),
      model: { provider: model.provider, id: model.id },
    };
  } catch (e) {
    live.asks.drop(askId);
    throw e;
  }
}

async function fork(
  live: BridgeSession,
  ctx: ExtensionCommandContext,
  entryId: string,
  position: 'before' | 'at',
): Promise<ForkData> {
  if (!existsSync(live.sessionFile))
    throw new BridgeFailure(
      'failed',
      'this session has not been saved yet (pi writes it with the first message); nothing to fork',
    );
  const { editorText } = position === 'before' ? landing(entryOf(ctx, entryId)) : { editorText: undefined };
  let next: { sessionFile?: string; sessionId?: string } = {};
  // After the switch only the fresh context may be used (the old one is stale); plain data is kept.
  const r = await ctx.fork(entryId, {
    position,
    withSession: async (fresh) => {
      next = { sessionFile: fresh.sessionManager.getSessionFile(), sessionId: fresh.sessionManager.getSessionId() };
    },
  });
  return { cancelled: r.cancelled, ...next, editorText };
}

function label(live: BridgeSession, r: BridgeRequest<'label'>): LabelData {
  const sm = live.ctx.sessionManager;
  const want = r.label?.trim() || undefined;
  if (sm.getLabel(r.entryId) === want) return { changed: false };
  live.pi.setLabel(r.entryId, want);
  live.refresh();
  return { changed: true, entryId: sm.getLeafId() ?? undefined };
}

function name(live: BridgeSession, r: BridgeRequest<'name'>): NameData {
  const clean = r.name.replace(/[\r\n]+/g, ' ').trim();
  if ((live.pi.getSessionName() ?? '') === clean) return { changed: false };
  live.pi.setSessionName(clean);
  live.refresh();
  return { changed: true, entryId: live.ctx.sessionManager.getLeafId() ?? undefined };
}

async function compact(live: BridgeSession, r: BridgeRequest<'compact'>): Promise<CompactData> {
  const sm = live.ctx.sessionManager;
  const previousLeafId = sm.getLeafId();
  const result = await new Promise<{
    summary: string;
    firstKeptEntryId: string;
    tokensBefore: number;
    details?: unknown;
    usage?: unknown;
  }>((resolve, reject) => {
    live.ctx.compact({
      customInstructions: r.customInstructions,
      onComplete: resolve,
      onError: (e) => reject(new BridgeFailure('failed', `pi could not compact: ${e.message}`)),
    });
  });
  const leaf = sm.getLeafId();
  const entry = leaf ? (sm.getEntry(leaf) as Entry | undefined) : undefined;
  if (!leaf || entry?.type !== 'compaction')
    throw new BridgeFailure('failed', 'pi reported a compaction but its leaf is not a compaction entry');
  live.refresh();
  return {
    compactionId: leaf,
    summary: result.summary,
    firstKeptEntryId: result.firstKeptEntryId,
    tokensBefore: result.tokensBefore,
    details: result.details,
    usage: result.usage,
    previousLeafId,
  };
}

/**
 * The branch summary pi would write for a move to `targetId`, without writing it: pi's own entry
 * selection (collectEntriesForBranchSummary) and summarizer (generateBranchSummary, pi's prompt) with
 * pi's current model, thinking level and branchSummary settings. Commit it with goto {summary, ifLeaf}.
 */
export async function summaryPreview(
  live: BridgeSession,
  r: BridgeRequest<'summaryPreview'>,
): Promise<SummaryPreviewData> {
  const ctx = live.ctx;
  const sm = ctx.sessionManager;
  const target = entryOf(ctx, r.targetId);
  const fromLeafId = sm.getLeafId();
  const newLeafId = landing(target).leaf;
  const empty = { readFiles: [], modifiedFiles: [] };
  const pi = await loadPi();
  if (!pi) throw new BridgeFailure('failed', "pi's package could not be loaded by the bridge");
  const { entries } =
    fromLeafId === r.targetId ? { entries: [] } : pi.collectEntriesForBranchSummary(sm, fromLeafId, r.targetId);
  if (!entries.length)
    return { summary: null, details: empty, fromLeafId, targetId: r.targetId, newLeafId, entries: 0 };
  const model = ctx.model;
  if (!model) throw new BridgeFailure('failed', 'pi has no model selected to write the summary');
  const settings = live.pi.getSettings() as { branchSummary?: { reserveTokens?: number } };
  const res = await pi.generateBranchSummary(entries, {
    model,
    signal: new AbortController().signal,
    thinkingLevel: live.pi.getThinkingLevel(),
    customInstructions: r.customInstructions,
    replaceInstructions: r.replaceInstructions,
    reserveTokens: settings.branchSummary?.reserveTokens ?? 16384,
    streamFn: (m, c, o) => ctx.modelRegistry.streamSimple(m, c, o),
  });
  if (res.aborted) throw new BridgeFailure('cancelled', 'the summary was aborted');
  if (res.error || !res.summary) throw new BridgeFailure('failed', res.error ?? 'pi wrote no summary');
  return {
    summary: res.summary,
    details: { readFiles: res.readFiles ?? [], modifiedFiles: res.modifiedFiles ?? [] },
    usage: res.usage,
    fromLeafId,
    targetId: r.targetId,
    newLeafId,
    entries: entries.length,
  };
}
