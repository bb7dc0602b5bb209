// How a restore's titles and lists, the asks and the variants name a node: what it is and the start of
// its text ("the answer “Done: the reader…”"), as the user knows it from the tree; an answer without text
// by its tool calls as the tree's row shows them ("the answer [write: src/app.ts]"); the id only when
// there is nothing else to name it by.
import { formatToolCall, fullText, toolCallsOf } from '../../core/context/entryText.js';
import { messageOf } from '../../core/format/types.js';
import { oneLine } from '../../core/listing/sessionTitle.js';
import type { Session } from '../../core/session/session.js';

const ROLE_WORDS: Record<string, string> = {
  user: 'the message',
  assistant: 'the answer',
  toolResult: 'the tool result',
  bashExecution: 'the bash run',
};

/** Characters of a node's text in a title. */
const TEXT_MAX = 48;

export async function describeEntry(session: Session, id: string): Promise<string> {
  const rec = session.index.get(id);
  if (!rec) return id;
  const what =
    rec.type === 'message' ? (ROLE_WORDS[rec.role ?? ''] ?? 'the message') : `the ${rec.type.replace(/_/g, ' ')}`;
  const entry = await session.getEntry(id).catch(() => undefined);
  const text = entry ? oneLine(fullText(messageOf(entry)?.content), TEXT_MAX) : '';
  if (text) return `${what} \u201c${text}\u201d`;
  const calls = entry ? toolCallsOf(entry).map((c) => formatToolCall(c.name, c.arguments)) : [];
  return calls.length ? `${what} ${oneLine(calls.join(' '), TEXT_MAX)}` : `${what} ${id}`;
}
