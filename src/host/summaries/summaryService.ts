// Branch summaries and compaction for the tree panels: preview first (the model writes, nothing is
// stored), then commit what the user accepted (possibly edited). Without a model the user writes the
// summary text; the file lists of the branch being left are still recorded as pi records them.
// Provider "pi" (the default when pi is installed): pi itself writes them, the running pi through its
// bridge, else a headless pi on a private copy (core/piClient/piSummaries.ts). What pi-tree writes into
// the file itself is refused while a pi runs the session, answering or not (refuseBehindPi).
import { nanoid } from 'nanoid';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { findBridge, PiUnresponsiveError } from '../../core/piClient/discovery.js';
import {
  compactByPi,
  commitCompactionByPi,
  previewBranchSummaryByPi,
  refuseBehindPi,
  type ByPiOptions,
  type PiBranchDraft,
  type PiCompaction,
} from '../../core/piClient/piSummaries.js';
import { HeadlessPiError } from '../../core/piClient/headless.js';
import type { FileDetails } from '../../core/piClient/protocol.js';
import { findPi, PiNotFoundError, type PiProgram } from '../../core/platform/piProgram.js';
import { StaleSessionError } from '../../core/summary/index.js';
import type { Usage } from '../../core/format/types.js';
import type { Session } from '../../core/session/session.js';
import {
  budgetOf,
  commitBranchSummary,
  planBranchSummary,
  previewBranchSummary,
  summarizeBranch,
  type BranchSummaryDraft,
} from '../../core/summary/branch.js';
import {
  commitCompaction,
  planCompaction,
  previewCompaction,
  summarizeCompaction,
  type CompactionPlan,
  type CompactionResult,
} from '../../core/summary/compaction.js';
import { createSummaryModel, registerSummaryModelCommands, summarySettings } from './models/factory.js';
import type { SummarySettings } from './models/settings.js';
import type { CompactPreview } from '../../protocol.js';

/** Branch summaries and compaction (the model side); the tree panels route requests to it. */
export interface SummaryService {
  available(): boolean;
  /** `targetId`: the node picked; `newLeaf`: where the leaf goes (its parent for a user message). */
  previewBranch(
    session: Session,
    targetId: string | null,
    newLeaf: string | null,
    focus: string | undefined,
    token: vscode.CancellationToken,
  ): Promise<{
    previewId: string;
    summary: string;
    details: { readFiles: string[]; modifiedFiles: string[] };
    entryCount: number;
    model?: string;
  }>;
  commitBranch(
    session: Session,
    targetId: string | null,
    newLeaf: string | null,
    summary: string,
    previewId?: string,
  ): Promise<{ leafId: string | null }>;
  cancel(previewId: string): void;
  /** The file lists of a branch preview (for a running pi to record with the reviewed text). */
  previewDetails(previewId: string | undefined): FileDetails | undefined;
  /** Is this compaction written already (by the running pi, which compacts at once)? */
  writtenAlready(previewId: string): boolean;
  /**
   * pi's /compact of the context at the leaf: by the pi running the session (written at once), else by
   * a headless pi (provider "pi") or the configured model, as a draft for commitCompaction.
   */
  previewCompaction(
    session: Session,
    focus: string | undefined,
    token: vscode.CancellationToken,
  ): Promise<CompactPreview>;
  commitCompaction(
    session: Session,
    previewId: string,
    summary: string,
  ): Promise<{ entryId: string; estimatedTokensAfter?: number }>;
}

interface PendingBranch {
  kind: 'branch';
  session: Session;
  draft: BranchSummaryDraft;
}
interface PendingCompaction {
  kind: 'compaction';
  session: Session;
  plan: CompactionPlan;
  result: CompactionResult;
}
interface PendingPiBranch {
  kind: 'piBranch';
  session: Session;
  draft: PiBranchDraft;
}
interface PendingPiCompaction {
  kind: 'piCompaction';
  session: Session;
  result: PiCompaction;
}
type Pending = PendingBranch | PendingCompaction | PendingPiBranch | PendingPiCompaction;

/** What provider "pi" needs from the host. */
export interface PiSummaryDeps {
  /** Absolute path of the bundled bridge (dist/pi-bridge.js), loaded into a headless pi. */
  bridgeFile: string;
  /** The piTree.piCommand setting. */
  piCommand: () => string;
  /** Record directories to look for a running pi in (the registry's). */
  discoveryDirs: string[];
}

/** pi's file lists as the webview shows them (pi's details are whatever its hooks wrote). */
function fileLists(d: unknown): { readFiles: string[]; modifiedFiles: string[] } {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const o = (d ?? {}) as { readFiles?: unknown; modifiedFiles?: unknown };
  return { readFiles: list(o.readFiles), modifiedFiles: list(o.modifiedFiles) };
}

/** Why pi could not do it, as a sentence the user reads in the dialog (headless pi's reasons are clauses). */
async function saidByPi<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof HeadlessPiError) throw new HeadlessPiError(`pi could not do it: ${e.message}.`);
    throw e;
  }
}

const toSignal = (token: vscode.CancellationToken): AbortSignal => {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  token.onCancellationRequested(() => ac.abort());
  return ac.signal;
};

export function createSummaryService(context: vscode.ExtensionContext, piDeps: PiSummaryDeps): SummaryService {
  registerSummaryModelCommands(context);
  const f: Flows = { context, piDeps, pi: watchPi(context, piDeps), previews: new Previews() };
  const lmModels = countChatModels(context);
  return {
    available() {
      const s = summarySettings();
      const p = f.pi.provider(s);
      return p === 'pi' ? true : p === 'openai-compatible' ? !!s.model : lmModels() > 0;
    },
    previewBranch: (session, targetId, newLeaf, focus, token) =>
      previewBranch(f, session, targetId, newLeaf, focus, token),
    commitBranch: (session, targetId, newLeaf, summary, previewId) =>
      commitBranch(f, session, targetId, newLeaf, summary, previewId),
    cancel(previewId) {
      f.previews.delete(previewId);
    },
    previewDetails(previewId) {
      const p = previewId ? f.previews.get(previewId) : undefined;
      if (p?.kind === 'piBranch') return p.draft.details;
      if (p?.kind === 'branch') return p.draft.summary?.details as FileDetails | undefined;
      return undefined;
    },
    writtenAlready(previewId) {
      const p = f.previews.get(previewId);
      return p?.kind === 'piCompaction' && p.result.via === 'running';
    },
    previewCompaction: (session, focus, token) => previewCompactionOf(f, session, focus, token),
    commitCompaction: (session, previewId, summary) => commitCompactionOf(f, session, previewId, summary),
  };
}

/** The previews waiting for a commit or a cancel, by id. */
class Previews extends Map<string, Pending> {
  remember(p: Pending): string {
    const id = nanoid(12);
    this.set(id, p);
    // Previews nobody commits or cancels (a closed panel) are dropped after a while.
    setTimeout(() => this.delete(id), 30 * 60_000).unref?.();
    return id;
  }
}

/** What the flows below share: the extension, the pi side and the previews made. */
interface Flows {
  context: vscode.ExtensionContext;
  piDeps: PiSummaryDeps;
  pi: PiAccess;
  previews: Previews;
}

/** pi as the summary provider: the provider in force, the pi that does the work, the refusal behind a running pi. */
interface PiAccess {
  /** The provider in force: `auto` is pi when pi is installed. */
  provider(s: SummarySettings): SummarySettings['provider'];
  /** Before pi-tree writes the file itself: no pi may run the session (see refuseBehindPi). */
  notBehindPi(session: Session): Promise<void>;
  /** Whether a pi with the bridge runs the session (one that does not answer: refused). */
  running(session: Session): Promise<boolean>;
  /** How pi does it: the pi running the session, else a headless pi. */
  byPi(session: Session, signal: AbortSignal, customInstructions?: string): Promise<ByPiOptions>;
}

function watchPi(context: vscode.ExtensionContext, piDeps: PiSummaryDeps): PiAccess {
  // pi's program, looked up when settings change and when a summary is asked for.
  let pi: PiProgram | undefined;
  const lookForPi = async () => {
    pi = await findPi(piDeps.piCommand()).catch(() => undefined);
    return pi;
  };
  void lookForPi();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('piTree') && void lookForPi()),
  );
  const discovery = { dirs: piDeps.discoveryDirs };
  const resumeHint = (e: unknown) =>
    e instanceof PiUnresponsiveError
      ? new Error(`${e.message}. Resume it (fg in its terminal) and try again.`, { cause: e })
      : e;
  const running = async (session: Session) =>
    !!session.path &&
    !!(await findBridge(session.path, discovery).catch((e: unknown) => Promise.reject(resumeHint(e))));
  return {
    provider: (s) => (s.provider === 'auto' ? (pi ? 'pi' : 'vscode-lm') : s.provider),
    async notBehindPi(session) {
      if (session.path)
        await refuseBehindPi(session.path, discovery).catch((e: unknown) => Promise.reject(resumeHint(e)));
    },
    running,
    async byPi(session, signal, customInstructions) {
      // The pi running the session does it: pi need not be on this PATH then. One that does not answer: refused.
      if (await running(session)) return { discovery, customInstructions };
      // Never a pi planted in the session's folder or its cwd (findPi's rule for Continue in pi too).
      const avoid = [session.path ? dirname(session.path) : '', String(session.header.cwd ?? '')].filter(Boolean);
      const program = await findPi(piDeps.piCommand(), { avoid }).catch((e: Error) => {
        throw new PiNotFoundError(
          `The summary provider is pi: ${e.message} Set piTree.piCommand, or choose another piTree.summary.provider.`,
        );
      });
      return { discovery, headless: { pi: program, bridgeFile: piDeps.bridgeFile, signal }, customInstructions };
    },
  };
}

/** The number of VS Code chat models, kept up to date. */
function countChatModels(context: vscode.ExtensionContext): () => number {
  let lmModels = 0;
  const refreshModels = async () => {
    try {
      lmModels = (await vscode.lm.selectChatModels()).length;
    } catch {
      lmModels = 0;
    }
  };
  void refreshModels();
  context.subscriptions.push(vscode.lm.onDidChangeChatModels(() => void refreshModels()));
  return () => lmModels;
}

type BranchPreview = Awaited<ReturnType<SummaryService['previewBranch']>>;

async function previewBranch(
  f: Flows,
  session: Session,
  targetId: string | null,
  newLeaf: string | null,
  focus: string | undefined,
  token: vscode.CancellationToken,
): Promise<BranchPreview> {
  if (targetId === null) throw new Error('A summary needs an entry to move to.');
  const signal = toSignal(token);
  const s = summarySettings();
  if (f.pi.provider(s) === 'pi') {
    if (!session.path) throw new Error('This session has no file for pi to open.');
    const draft = await saidByPi(
      previewBranchSummaryByPi(session.path, targetId, await f.pi.byPi(session, signal, focus?.trim() || undefined)),
    );
    if (!draft.summary) throw new Error('Nothing to summarize: the move leaves no entries behind.');
    const previewId = f.previews.remember({ kind: 'piBranch', session, draft });
    return {
      previewId,
      summary: draft.summary,
      details: draft.details,
      entryCount: draft.entries,
      model: `pi ${draft.via === 'running' ? `(pid ${draft.pid})` : '(headless)'}`,
    };
  }
  const model = await createSummaryModel(f.context, { interactive: true });
  const tokenCap = budgetOf({ contextWindow: model.contextWindow, reserveTokens: s.reserveTokens });
  const plan = await planBranchSummary(session, targetId, {
    newLeafId: newLeaf,
    signal,
    tokenCap: tokenCap > 0 ? tokenCap : undefined,
  });
  const draft = await summarizeBranch(plan, model, {
    reserveTokens: s.reserveTokens,
    focus: focus?.trim() || undefined,
    signal,
  });
  if (!draft.summary) throw new Error('Nothing to summarize: the move leaves no entries behind.');
  const previewId = f.previews.remember({ kind: 'branch', session, draft });
  const d = draft.summary.details as { readFiles: string[]; modifiedFiles: string[] };
  return { previewId, summary: draft.summary.summary, details: d, entryCount: plan.totalEntries, model: model.id };
}

async function commitBranch(
  f: Flows,
  session: Session,
  targetId: string | null,
  newLeaf: string | null,
  summary: string,
  previewId?: string,
): Promise<{ leafId: string | null }> {
  const p = previewId ? f.previews.get(previewId) : undefined;
  if (previewId && !p) throw new Error('This summary preview has expired; ask for it again.');
  await f.pi.notBehindPi(session);
  if (p && p.kind === 'piBranch') {
    // No pi runs the session any more (a running one took the commit in SessionActions): pi-tree
    // writes pi's summary, exactly as pi writes it, where the user's file stood when it was made.
    if (p.session !== session || p.draft.newLeafId !== newLeaf)
      throw new Error('The preview was made for another move.');
    f.previews.delete(previewId!);
    if (session.leafId !== p.draft.fromLeafId)
      throw new StaleSessionError(
        `The session changed while pi was summarizing (its leaf is now ${session.leafId ?? 'empty'}); nothing was written. Summarize again.`,
      );
    const r = await session.moveTo(p.draft.newLeafId, {
      summary,
      details: p.draft.details,
      usage: p.draft.usage as Usage | undefined,
      fromHook: false,
    });
    return { leafId: r.leafId };
  }
  if (p && p.kind === 'branch') {
    if (p.session !== session || p.draft.plan.newLeafId !== newLeaf)
      throw new Error('The preview was made for another move.');
    f.previews.delete(previewId!);
    const r = await commitBranchSummary(session, { ...p.draft, summary: { ...p.draft.summary!, summary } });
    return { leafId: r.leafId };
  }
  // Written by the user: record the branch's file lists as pi does for its own summaries.
  let details = { readFiles: [] as string[], modifiedFiles: [] as string[] };
  if (targetId !== null) {
    const plan = await planBranchSummary(session, targetId, { newLeafId: newLeaf });
    const preview = previewBranchSummary(plan, { contextWindow: 0 });
    details = { readFiles: preview.readFiles, modifiedFiles: preview.modifiedFiles };
  }
  const r = await session.moveTo(newLeaf, { summary, details, fromHook: false });
  return { leafId: r.leafId };
}

async function previewCompactionOf(
  f: Flows,
  session: Session,
  focus: string | undefined,
  token: vscode.CancellationToken,
): Promise<CompactPreview> {
  const signal = toSignal(token);
  const s = summarySettings();
  const instructions = focus?.trim() || undefined;
  // A pi with the bridge runs the session: only pi may change it (it keeps its leaf in memory).
  if ((await f.pi.running(session)) || f.pi.provider(s) === 'pi') {
    if (!session.path) throw new Error('This session has no file for pi to open.');
    const result = await saidByPi(
      compactByPi(session.path, { ...(await f.pi.byPi(session, signal, instructions)), waitMs: 2000 }),
    );
    if (result.via === 'running') await session.refresh();
    const previewId = f.previews.remember({ kind: 'piCompaction', session, result });
    return {
      previewId,
      summary: result.summary,
      details: fileLists(result.details),
      tokensBefore: result.tokensBefore,
      firstKeptEntryId: result.firstKeptEntryId,
      model: result.via === 'running' ? `pi (pid ${result.pid})` : 'pi (headless)',
      // The running pi compacted already: moving back to previousLeafId undoes it.
      ...(result.via === 'running'
        ? { committed: true, entryId: result.compactionId, previousLeafId: result.previousLeafId }
        : {}),
    };
  }
  const plan = await planCompaction(
    session,
    { keepRecentTokens: s.keepRecentTokens, reserveTokens: s.reserveTokens },
    signal,
  );
  if (!plan.preparation) throw new Error(plan.reason ?? 'Nothing to compact.');
  const before = previewCompaction(plan.preparation);
  const model = await createSummaryModel(f.context, { interactive: true });
  const result = await summarizeCompaction(plan.preparation, model, { signal, focus: instructions });
  const previewId = f.previews.remember({ kind: 'compaction', session, plan, result });
  return {
    previewId,
    summary: result.summary,
    details: result.details,
    tokensBefore: before.tokensBefore,
    keptTokens: before.keptTokens,
    summarizedEntries: before.summarizedEntries,
    keptEntries: before.keptEntries,
    firstKeptEntryId: result.firstKeptEntryId,
    model: model.id,
  };
}

async function commitCompactionOf(
  f: Flows,
  session: Session,
  previewId: string,
  summary: string,
): Promise<{ entryId: string; estimatedTokensAfter?: number }> {
  const p = f.previews.get(previewId);
  if (p?.kind === 'piCompaction' && p.session === session) {
    f.previews.delete(previewId);
    const r = p.result;
    if (r.via === 'running') {
      if (summary !== r.summary)
        throw new Error(
          `pi (pid ${r.pid}) wrote this compaction already and it cannot be edited; move back to ${r.previousLeafId ?? 'the start'} to undo it.`,
        );
      return { entryId: r.compactionId };
    }
    if (!session.path) throw new Error('This session has no file.');
    const c = await commitCompactionByPi(session.path, r, {
      text: summary,
      discovery: { dirs: f.piDeps.discoveryDirs },
    });
    await session.refresh();
    return { entryId: c.compactionId };
  }
  if (!p || p.kind !== 'compaction' || p.session !== session)
    throw new Error('This compaction preview has expired; ask for it again.');
  await f.pi.notBehindPi(session);
  f.previews.delete(previewId);
  const c = await commitCompaction(session, p.plan, { ...p.result, summary });
  return { entryId: c.entry.id, estimatedTokensAfter: c.estimatedTokensAfter };
}
