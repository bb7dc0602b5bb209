// The title of an open session (a tab, the tree's header), from the session itself, so a fork just
// made is named before the sidebar has listed it: core/listing/sessionTitle.ts's rule over its name, the
// time that name was set, its first user message, its parent, and (from the sidebar's listing) whether
// it is a fork or a clone and which of its source's.
import { basename } from 'node:path';
import { fullText } from '../../core/context/entryText.js';
import type { Session } from '../../core/session/session.js';
import { sessionTitle, type FamilyPlace } from '../../core/listing/sessionTitle.js';
import { messageOf } from '../../core/format/types.js';

export interface FirstTexts {
  /** The first user message. */
  first?: string;
  /** A fork's first user message written after it was forked. */
  own?: string;
}

/** The texts of the first user message and of a fork's own first one (undefined when none yet). */
export async function firstUserTexts(s: Session): Promise<FirstTexts> {
  // Over the columns: no record object per entry (a session may hold a million).
  const index = s.index;
  const created = Date.parse(String(s.header.timestamp));
  const forked = typeof s.header.parentSession === 'string' && !Number.isNaN(created);
  let first: string | undefined;
  let own: string | undefined;
  for (let i = 0; i < index.count && (first === undefined || (forked && own === undefined)); i++) {
    if (!index.isLive(i) || !index.isType(i, 'message') || index.roleOf(i) !== 'user') continue;
    first ??= index.idOf(i);
    if (forked && own === undefined && index.timeOf(i) >= created) own = index.idOf(i);
  }
  const users = first === undefined ? [] : [{ id: first }];
  const text = async (id: string | undefined) => {
    if (!id) return undefined;
    const e = await s.getEntry(id);
    const m = e && messageOf(e);
    return (m ? fullText(m.content).replace(/\s+/g, ' ').trim() : '') || undefined;
  };
  return { first: await text(users[0]?.id), own: own && own !== first ? await text(own) : undefined };
}

/** Time of the session_info entry in effect (the last in the file, as pi reads the name): kept by the index. */
function nameTime(s: Session): number | undefined {
  return s.index.nameTime || undefined;
}

/**
 * The title of an open session; `fallback` names one without a user message, but a fork without one
 * reads as its source (`sourceText`: the source's name or first message), never as a file name.
 */
export function titleOf(
  s: Session,
  texts: FirstTexts,
  fallback: string,
  max = 80,
  place?: FamilyPlace,
  sourceText?: string,
): string {
  const created = Date.parse(String(s.header.timestamp));
  const parentSessionPath = typeof s.header.parentSession === 'string' ? s.header.parentSession : undefined;
  return sessionTitle(
    {
      name: s.name,
      nameTime: nameTime(s),
      firstMessage: texts.first ?? (parentSessionPath ? '' : fallback),
      ownFirstMessage: texts.own,
      parentSessionPath,
      created: Number.isNaN(created) ? 0 : created,
      place,
      sourceText,
    },
    max,
  );
}

/** The longest tab title. */
export const TAB_TITLE_MAX = 40;

/** A tree's title before its session is read: the sidebar row's (`listed`), else the file's name. */
export function unreadTitle(
  file: string,
  listed?: (file: string, max: number) => string | undefined,
  max = TAB_TITLE_MAX,
): string {
  return listed?.(file, max) || basename(file);
}
