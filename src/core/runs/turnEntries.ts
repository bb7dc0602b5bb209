// A turn's result as pi wrote it: the entries it appended to the session file (read from the byte where
// the turn began; pi writes whole lines, a torn last piece is left out), and what they say: the user
// message that carries the prompt, the assistant message that holds the answer (the last one: a turn
// with tool calls has one per model call), how it stopped, and the usage pi recorded.
import { open } from 'node:fs/promises';
import { fullText } from '../context/entryText.js';
import { messageOf, type SessionEntry, type Usage } from '../format/types.js';

export interface TurnSummary {
  /** The user message pi appended for the prompt. */
  promptId?: string;
  /** The assistant message that holds the answer (the turn's last). */
  answerId?: string;
  /** Its text (text blocks only; '' when it has none). */
  answer: string;
  /** Its stopReason as pi recorded it ("stop", "error", "aborted", …). */
  stopReason?: string;
  /** pi's words when the model call failed (stopReason "error"). */
  errorMessage?: string;
  /** The usage of the turn's assistant messages, summed (absent when pi recorded none). */
  usage?: Usage;
  /** Their cost in USD as pi priced it (usage.cost.total summed). */
  cost?: number;
}

/** The entries appended to `file` from byte `from` on (whole lines only; the header and lines that do not parse are left out). */
export async function readAppended(file: string, from: number): Promise<SessionEntry[]> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size <= from) return [];
    const buf = Buffer.alloc(size - from);
    let read = 0;
    while (read < buf.length) {
      const { bytesRead } = await fh.read(buf, read, buf.length - read, from + read);
      if (!bytesRead) break;
      read += bytesRead;
    }
    const text = buf.subarray(0, read).toString('utf8');
    const end = text.lastIndexOf('\n');
    const out: SessionEntry[] = [];
    for (const line of text.slice(0, end + 1).split('\n')) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as SessionEntry;
        if (
          v &&
          typeof v === 'object' &&
          typeof v.type === 'string' &&
          v.type !== 'session' &&
          typeof v.id === 'string'
        )
          out.push(v);
      } catch {
        // not an entry line
      }
    }
    return out;
  } finally {
    await fh.close();
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** What a turn's entries say (see TurnSummary). */
export function summarizeTurn(entries: readonly SessionEntry[]): TurnSummary {
  const out: TurnSummary = { answer: '' };
  let usage: Usage | undefined;
  let cost: number | undefined;
  for (const e of entries) {
    const m = messageOf(e);
    if (!m) continue;
    if (m.role === 'user' && out.promptId === undefined) out.promptId = e.id;
    if (m.role !== 'assistant') continue;
    const a = m as { content?: unknown; stopReason?: unknown; errorMessage?: unknown; usage?: Partial<Usage> };
    out.answerId = e.id;
    out.answer = fullText(a.content);
    out.stopReason = typeof a.stopReason === 'string' ? a.stopReason : undefined;
    out.errorMessage = typeof a.errorMessage === 'string' && a.errorMessage ? a.errorMessage : undefined;
    const u = a.usage;
    if (u && typeof u === 'object') {
      usage ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
      usage.input += num(u.input);
      usage.output += num(u.output);
      usage.cacheRead += num(u.cacheRead);
      usage.cacheWrite += num(u.cacheWrite);
      usage.totalTokens = (usage.totalTokens ?? 0) + num(u.totalTokens);
      if (u.cost && typeof u.cost === 'object') cost = (cost ?? 0) + num((u.cost as { total?: unknown }).total);
    }
  }
  if (usage) out.usage = usage;
  if (cost !== undefined) out.cost = cost;
  return out;
}
