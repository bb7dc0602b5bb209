// How a restore's titles and lists name a node: what it is and the start of its text ("the answer
// “Done: the reader…”"), as the user knows it from the tree; the id only when it has no text.
import { fullText } from '../../core/context/entryText.js';
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
  return text ? `${what} \u201c${text}\u201d` : `${what} ${id}`;
}
