// What a session is called — one rule for the sidebar, the tabs, the tree's header, the family's link
// nodes and the compare view: its name, else its first message, as pi's /resume shows it. A fork or
// clone copies its source's path (pi's /fork and /clone keep the name and the first message), so it
// would read exactly like its source, and like every other fork of it. So a fork is called by what is
// its own: a name given after forking, else its own first message (what the user went on with), else —
// just forked — "<inherited name or first message> (fork 2 · 10:20)": what it is (fork or clone,
// core/listing/forkKind.ts), which of its source's forks (or clones) it is, and when it was made. The
// number is there from the first fork on, so a fork keeps its name when a sibling is made. A fork made
// before its source's first message holds no message to be named by: it reads as its source does.
import type { ForkKind } from './forkKind.js';
import { NO_MESSAGES } from './sessionInfo.js';

/** Where a fork or clone stands among those made from the same session. */
export interface FamilyPlace {
  kind: ForkKind;
  /** 1-based, oldest first, among its source's forks (or clones). */
  n: number;
  of: number;
}

export interface TitleFacts {
  name?: string;
  /** Time (ms) of the session_info entry that set the name; names copied from the source are older than the fork. */
  nameTime?: number;
  firstMessage: string;
  /** A fork's first user message written after it was forked. */
  ownFirstMessage?: string;
  /** The header's parentSession: the session it was forked or cloned from. */
  parentSessionPath?: string;
  /** Header time (ms): when this file was made. */
  created: number;
  /** Fork or clone, and which of its source's (familyPlaces); unknown: "fork". */
  place?: FamilyPlace;
  /** The source's name or first message, for a fork that holds no user message ('' firstMessage). */
  sourceText?: string;
}

/** Whether the name was given in this session (not inherited from the session it was forked from). */
export function ownName(f: TitleFacts): boolean {
  return f.name !== undefined && (!f.parentSessionPath || (f.nameTime ?? 0) >= f.created);
}

/** The title of a listed session (core/sessionInfo.ts); `place` as familyPlaces found it. */
export function infoTitle(
  i: {
    name?: string;
    nameTime?: number;
    firstMessage: string;
    ownFirstMessage?: string;
    parentSessionPath?: string;
    created: Date;
  },
  max = 80,
  place?: FamilyPlace,
  sourceText?: string,
): string {
  // pi lists a session without a user message as "(no messages)": a fork of that kind reads as its source.
  const none = i.parentSessionPath && i.firstMessage === NO_MESSAGES;
  return sessionTitle(
    { ...i, firstMessage: none ? '' : i.firstMessage, created: i.created.getTime(), place, sourceText },
    max,
  );
}

export function sessionTitle(f: TitleFacts, max = 80): string {
  if (!f.parentSessionPath || ownName(f)) return oneLine(f.name ?? f.firstMessage, max);
  if (f.ownFirstMessage?.trim()) return oneLine(f.ownFirstMessage, max);
  const mark = `(${forkMark(f.place, f.created)})`;
  const base = oneLine(f.name ?? (f.firstMessage || f.sourceText || ''), Math.max(1, max - mark.length - 1));
  return base ? `${base} ${mark}` : mark;
}

/** "fork 1 · 10:20", "clone 2 · 10:31": what it is, which one (when known), when it was made (local time). */
export function forkMark(place: FamilyPlace | undefined, created: number): string {
  const kind = place?.kind ?? 'fork';
  const which = place ? ` ${place.n}` : '';
  const d = new Date(created);
  const time = Number.isNaN(d.getTime())
    ? ''
    : ` · ${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return `${kind}${which}${time}`;
}

/**
 * The place of every fork and clone among `infos` beside the others made from the same session: forks
 * and clones counted apart, oldest first. `kindOf` says which each is (unknown: a fork).
 */
export function familyPlaces(
  infos: Iterable<{ path: string; parentSessionPath?: string; created: Date }>,
  kindOf: (path: string) => ForkKind | undefined,
): Map<string, FamilyPlace> {
  const bySource = new Map<string, { path: string; created: number; kind: ForkKind }[]>();
  for (const i of infos) {
    if (!i.parentSessionPath) continue;
    const list = bySource.get(i.parentSessionPath) ?? [];
    list.push({ path: i.path, created: i.created.getTime(), kind: kindOf(i.path) ?? 'fork' });
    bySource.set(i.parentSessionPath, list);
  }
  const out = new Map<string, FamilyPlace>();
  for (const list of bySource.values()) {
    list.sort((a, b) => a.created - b.created || a.path.localeCompare(b.path));
    for (const kind of ['fork', 'clone'] as const) {
      const same = list.filter((x) => x.kind === kind);
      same.forEach((x, i) => out.set(x.path, { kind, n: i + 1, of: same.length }));
    }
  }
  return out;
}

/** `s` on one line (runs of whitespace as one space), cut to `max` characters with an ellipsis. */
export function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
