// How a restore's titles name a node: what it is and its id ("the answer 5cc7e570").
import type { Session } from '../../core/session/session.js';

const ROLE_WORDS: Record<string, string> = { user: 'the message', assistant: 'the answer', toolResult: 'the tool result', bashExecution: 'the bash run' };

export function describeEntry(session: Session, id: string): string {
  const rec = session.index.get(id);
  if (!rec) return id;
  const what = rec.type === 'message' ? (ROLE_WORDS[rec.role ?? ''] ?? 'the message') : `the ${rec.type.replace(/_/g, ' ')}`;
  return `${what} ${id}`;
}
