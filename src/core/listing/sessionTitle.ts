// What a session is called in lists and tabs: its name, else its first message, as pi's /resume shows
// it. A fork or clone copies its source's path (pi's /fork and /clone keep the name and the first
// message), so it would read exactly like its source, and like every other fork of it. So a fork is
// called by what is its own: a name given after forking, else its own first message (what the user
// went on with), else — just forked — "<inherited name or first message> (fork)".

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
}

/** Whether the name was given in this session (not inherited from the session it was forked from). */
export function ownName(f: TitleFacts): boolean {
  return f.name !== undefined && (!f.parentSessionPath || (f.nameTime ?? 0) >= f.created);
}

/** The title of a listed session (core/sessionInfo.ts). */
export function infoTitle(i: { name?: string; nameTime?: number; firstMessage: string; ownFirstMessage?: string; parentSessionPath?: string; created: Date }, max = 80): string {
  return sessionTitle({ ...i, created: i.created.getTime() }, max);
}

export function sessionTitle(f: TitleFacts, max = 80): string {
  if (!f.parentSessionPath || ownName(f)) return oneLine(f.name ?? f.firstMessage, max);
  if (f.ownFirstMessage?.trim()) return oneLine(f.ownFirstMessage, max);
  return `${oneLine(f.name ?? f.firstMessage, max - 7)} (fork)`;
}

/** `s` on one line (runs of whitespace as one space), cut to `max` characters with an ellipsis. */
export function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
