// What the model would see with the leaf at a node, as a list a person can read: one line of text per
// message with pi's token estimate, and where a compaction starts the context. Built in slices, because
// a 100k-entry session's context has tens of thousands of messages and callers share an event loop.
import { convertToLlm } from './context.js';
import { fullText } from './entryText.js';
import type { Session } from '../session/session.js';
import { estimateTokens } from '../summary/tokens.js';
import type { AgentMessage, CompactionEntry } from '../format/types.js';
import { asText } from '../format/values.js';

export interface ContextListing {
  leafId: string | null;
  messages: { role: string; text: string; tokens: number }[];
  tokens: number;
  /** Index in `messages` of the compaction summary, when the context starts at a compaction. */
  compactionAt?: number;
  thinkingLevel: string;
  model: string | null;
}

const SLICE_MS = 8;
const TEXT_MAX = 400;

export async function listContext(
  session: Session,
  leafId: string | null,
  yieldNow: () => Promise<void> = () => new Promise<void>((r) => setImmediate(r)),
): Promise<ContextListing> {
  const ctx = await session.buildContext(leafId);
  const path = session.index.branch(leafId);
  let compaction: CompactionEntry | undefined;
  for (let i = path.length - 1; i >= 0 && !compaction; i--)
    if (path[i].type === 'compaction') compaction = path[i].entry as CompactionEntry | undefined;
  const messages: ContextListing['messages'] = [];
  let t0 = performance.now();
  for (const m of ctx.messages) {
    const llm = convertToLlm([m])[0];
    const text = llm ? fullText(llm.content) || describeContent(llm) : describeContent(m);
    messages.push({ role: asText(m.role), text: text.slice(0, TEXT_MAX), tokens: estimateTokens(m) });
    if (performance.now() - t0 > SLICE_MS) {
      await yieldNow();
      t0 = performance.now();
    }
  }
  const at = compaction
    ? ctx.messages.findIndex((m) => m.role === 'compactionSummary' && m.summary === compaction.summary)
    : -1;
  return {
    leafId,
    messages,
    tokens: messages.reduce((n, m) => n + m.tokens, 0),
    compactionAt: at >= 0 ? at : undefined,
    thinkingLevel: ctx.thinkingLevel,
    model: ctx.model ? `${asText(ctx.model.provider)}/${asText(ctx.model.modelId)}` : null,
  };
}

/** A line for a message without text: its tool calls, or the command of a bash execution. */
function describeContent(m: AgentMessage): string {
  if (Array.isArray(m.content)) {
    const calls = (m.content as { type?: string; name?: string }[])
      .filter((b) => b?.type === 'toolCall')
      .map((b) => asText(b.name));
    if (calls.length) return `(tool calls: ${calls.join(', ')})`;
  }
  if (m.role === 'bashExecution') return `$ ${asText(m.command ?? '')}`;
  return '';
}
