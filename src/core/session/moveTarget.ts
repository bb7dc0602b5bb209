// pi's rule for where the leaf goes when the user picks an entry in /tree (agent-session.js
// navigateTree): a user message or a custom message puts the leaf on its PARENT (null at the root) and
// its text goes back to the editor, to be edited and sent again; any other entry becomes the leaf.
// The tree panel and `pi-tree move` both ask this; the rule itself is src/shared/moveRule.ts.
import { movesToParent } from '../../shared/moveRule.js';
import { fullText } from '../context/entryText.js';
import { EntryNotFoundError, type Session } from './session.js';
import { messageOf } from '../format/types.js';

export interface MoveTarget {
  /** Where the leaf goes. */
  leaf: string | null;
  /** The picked message's text, when pi would put it in the editor. */
  editorText?: string;
}

export async function moveTarget(session: Session, id: string | null): Promise<MoveTarget> {
  if (id === null) return { leaf: null };
  const rec = session.index.get(id);
  if (!rec) throw new EntryNotFoundError(id);
  if (!movesToParent(rec.type, rec.role)) return { leaf: id };
  const isUser = rec.type === 'message';
  const e = await session.getEntry(id);
  const content = e ? (isUser ? messageOf(e)?.content : (e as { content?: unknown }).content) : undefined;
  // A parent that is not in the file (a damaged chain) counts as the root, as the tree shows it.
  const leaf = rec.parentId !== null && session.index.get(rec.parentId) ? rec.parentId : null;
  return { leaf, editorText: fullText(content) };
}
