// Branch summaries and compactions written by pi itself: through the bridge of the pi running the
// session, or else through a headless pi on a private copy (headless.ts). Previews first, commits
// second: a branch summary is shown for review and committed as reviewed (by the running pi through
// its session_before_tree hook, else by pi-tree's writer exactly as pi writes it); a compaction by a
// running pi is committed at once and undone by moving back to `previousLeafId`, a headless one is a
// draft until committed. A pi that runs the session but does not answer is never worked around: the
// PiUnresponsiveError of findBridge ends the preview or commit, nothing is written behind it.
import { Session } from '../session/session.js';
import { commitCompaction, planCompaction, StaleSessionError } from '../summary/index.js';
import type { FileDetails, Usage } from '../format/types.js';
import { actionKey, BridgeClient } from './client.js';
import { findBridge, type DiscoveryOptions } from './discovery.js';
import { HeadlessPiError, withHeadlessPi, type HeadlessOptions, type HeadlessPi } from './headless.js';
import type { CompactData, SummaryPreviewData } from './protocol.js';

export interface ByPiOptions {
  /** Where to look for a running pi (its bridge). */
  discovery?: DiscoveryOptions;
  /** How to run pi when none runs the session; without it, only a running pi is used. */
  headless?: HeadlessOptions;
  customInstructions?: string;
  replaceInstructions?: boolean;
}

export interface Via {
  via: 'running' | 'headless';
  pid: number;
}

export type PiBranchDraft = SummaryPreviewData & Via;

async function withRunning<T>(
  sessionFile: string,
  opts: ByPiOptions,
  fn: (c: BridgeClient, pid: number) => Promise<T>,
): Promise<T | undefined> {
  const live = await findBridge(sessionFile, opts.discovery);
  if (!live) return undefined;
  const client = await BridgeClient.connect(live.record);
  try {
    return await fn(client, live.record.pid);
  } finally {
    client.close();
  }
}

/**
 * Refuses a write into `sessionFile` by pi-tree while a pi runs it: a live one must make it itself
 * (StaleSessionError), one that does not answer would go on from its own leaf (PiUnresponsiveError).
 */
export async function refuseBehindPi(sessionFile: string, discovery?: DiscoveryOptions): Promise<void> {
  const live = await findBridge(sessionFile, discovery);
  if (live)
    throw new StaleSessionError(
      `pi ${live.record.pid} runs this session (with the pi-tree bridge) and would not see it written behind its back; nothing was written. Do it in pi.`,
    );
}

function needHeadless(opts: ByPiOptions): HeadlessOptions {
  if (!opts.headless)
    throw new HeadlessPiError('no pi with the pi-tree bridge runs this session, and starting pi is not configured');
  return opts.headless;
}

const SILENT_TYPES = new Set([
  'thinking_level_change',
  'model_change',
  'leaf',
  'label',
  'session_info',
  'custom',
  'usage',
]);

/**
 * Makes the headless pi stand where pi-tree reads the user's file. pi resumes at the last line; pi-tree
 * honours leaf records and pi adds startup entries, so pi's leaf may be a few context-free entries past
 * pi-tree's: that is the same position. Otherwise pi is moved there (on the copy).
 */
async function alignLeaf(h: HeadlessPi): Promise<void> {
  const st = await h.client.state();
  if (st.leafId === h.leafId) return;
  const copy = await Session.open(h.copy);
  const path = copy.index.branch(st.leafId);
  let i = path.length - 1;
  while (i >= 0 && path[i].id !== h.leafId && SILENT_TYPES.has(path[i].type)) i--;
  if (h.leafId === null ? i < 0 : path[i]?.id === h.leafId) return;
  const target = h.leafId === null ? undefined : copy.index.get(h.leafId);
  if (!target || target.role === 'user' || target.type === 'custom_message') {
    throw new HeadlessPiError(
      `pi would resume this session at ${st.leafId ?? '(empty)'}, not where pi-tree shows it (${h.leafId ?? '(empty)'}); open the session in pi once, then try again`,
    );
  }
  await h.client.request('goto', { targetId: target.id });
}

/** pi's summary of the branch a move to `targetId` would leave, not yet written. */
export async function previewBranchSummaryByPi(
  sessionFile: string,
  targetId: string,
  opts: ByPiOptions = {},
): Promise<PiBranchDraft> {
  const args = { targetId, customInstructions: opts.customInstructions, replaceInstructions: opts.replaceInstructions };
  const running = await withRunning(sessionFile, opts, async (c, pid) => ({
    ...(await c.request('summaryPreview', args)),
    via: 'running' as const,
    pid,
  }));
  if (running) return running;
  return withHeadlessPi(sessionFile, needHeadless(opts), async (h) => {
    await alignLeaf(h);
    const p = await h.client.request('summaryPreview', args);
    // Where the user's file stands (pi's copy may hold startup entries past it).
    return { ...p, fromLeafId: h.leafId, via: 'headless' as const, pid: h.pid };
  });
}

export type PiCompaction =
  /** Done by the running pi: written already; move back to previousLeafId to undo. */
  | (CompactData & { via: 'running'; pid: number; committed: true })
  /** Written by a headless pi on a copy: a draft for commitCompactionByPi. */
  | {
      via: 'headless';
      pid: number;
      committed: false;
      leafId: string | null;
      summary: string;
      firstKeptEntryId: string;
      tokensBefore: number;
      details?: FileDetails;
      usage?: Usage;
    };

/** Compacts the session's context with pi's own compaction (see PiCompaction for what is written when). */
export async function compactByPi(
  sessionFile: string,
  opts: ByPiOptions & { waitMs?: number } = {},
): Promise<PiCompaction> {
  const running = await withRunning(sessionFile, opts, async (c, pid) => ({
    ...(await c.request('compact', {
      customInstructions: opts.customInstructions,
      waitMs: opts.waitMs,
      key: actionKey(),
    })),
    via: 'running' as const,
    pid,
    committed: true as const,
  }));
  if (running) return running;
  return withHeadlessPi(sessionFile, needHeadless(opts), async (h) => {
    await alignLeaf(h);
    const r = await h.client.request('compact', { customInstructions: opts.customInstructions });
    return {
      via: 'headless' as const,
      pid: h.pid,
      committed: false as const,
      leafId: h.leafId,
      summary: r.summary,
      firstKeptEntryId: r.firstKeptEntryId,
      tokensBefore: r.tokensBefore,
      details: r.details as FileDetails | undefined,
      usage: r.usage as Usage | undefined,
    };
  });
}

/** Writes a headless pi's compaction (its summary, or the user's edit of it) under the leaf it was made for. */
export async function commitCompactionByPi(
  sessionFile: string,
  draft: Extract<PiCompaction, { committed: false }>,
  opts: { text?: string; discovery?: DiscoveryOptions } = {},
): Promise<{ compactionId: string; previousLeafId: string | null }> {
  if (await findBridge(sessionFile, opts.discovery))
    throw new StaleSessionError(
      'pi started on this session meanwhile; nothing was written. Compact again (pi itself will do it).',
    );
  const session = await Session.open(sessionFile);
  const plan = await planCompaction(session);
  if (plan.leafId !== draft.leafId)
    throw new StaleSessionError(
      `The session changed while the compaction was being made (its leaf is now ${plan.leafId ?? 'empty'}, was ${draft.leafId ?? 'empty'}); nothing was written. Compact again.`,
    );
  if (!plan.path.some((e) => e.id === draft.firstKeptEntryId))
    throw new StaleSessionError(
      `pi kept from ${draft.firstKeptEntryId}, which is not on the session's current path; nothing was written.`,
    );
  const { entry } = await commitCompaction(session, plan, {
    summary: opts.text ?? draft.summary,
    firstKeptEntryId: draft.firstKeptEntryId,
    tokensBefore: draft.tokensBefore,
    details: draft.details ?? { readFiles: [], modifiedFiles: [] },
    usage: draft.usage,
    requests: [],
  });
  return { compactionId: entry.id, previousLeafId: draft.leafId };
}
