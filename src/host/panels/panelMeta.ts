// The session facts a tree panel sends its webview (SessionMeta): the session's own (header, name,
// title, diagnostics), the panel's (file name, restore token), the settings', and pi's connection.
// Before the session is open, a first screen read from the file's end carries what that end tells.
import { basename } from 'node:path';
import type { Session } from '../../core/session/session.js';
import type { SessionMeta } from '../../protocol.js';
import type { LiveState } from '../runningPi/liveSession.js';
import { readConfig } from '../platform/config.js';
import type { WorkerFirstScreen } from '../projection/workerProjection.js';

export interface MetaSources {
  file: string;
  restoreToken: string;
  /** The first user message, once read. */
  firstMessage: string | undefined;
  /** What the sidebar knows before the file is read: its title for the session (core/listing/sessionTitle.ts) and first message. */
  listedTitle: string | undefined;
  listedFirst: string | undefined;
  /** pi's bridge connection, when there is one. */
  live: LiveState | undefined;
  /** Recently appended to by someone else (without a connection). */
  isLive: boolean;
  summariesAvailable: boolean;
  /** Entries hidden in this session's code views. */
  hidden: string[];
}

/** The meta of an open session; `title` as the tab shows it. */
export function sessionMeta(m: MetaSources, s: Session, title: string): SessionMeta {
  return {
    ...panelFacts(m, s.header.id),
    cwd: String(s.header.cwd ?? ''),
    name: s.name,
    title,
    readOnly: s.readOnly,
    diagnostics: firstProblems(s.diagnostics, 200),
  };
}

/** The first `max` diagnostics that are not info (a garbage file has one per line: no pass over all of them). */
function firstProblems(all: Session['diagnostics'], max: number): SessionMeta['diagnostics'] {
  const out: SessionMeta['diagnostics'] = [];
  for (let i = 0; i < all.length && out.length < max; i++) {
    const d = all[i];
    if (d.severity !== 'info') out.push({ line: d.line, severity: d.severity, message: d.message });
  }
  return out;
}

/** The meta of a first screen read from the file's end, before the session is open (the snapshot's replaces it). */
export function earlyMeta(m: MetaSources, p: WorkerFirstScreen): SessionMeta {
  const title = (m.listedTitle ?? p.name ?? basename(m.file)).slice(0, 120);
  return { ...panelFacts(m, p.sessionId), cwd: p.cwd, name: p.name, title, diagnostics: [] };
}

function panelFacts(m: MetaSources, sessionId: string) {
  const config = readConfig();
  return {
    fileName: basename(m.file),
    sessionId,
    firstMessage: (m.firstMessage ?? m.listedFirst)?.slice(0, 200),
    live: !m.live && m.isLive,
    ...(m.live ? { bridge: { pid: m.live.pid, busy: m.live.busy, piVersion: m.live.piVersion } } : {}),
    clickAction: config.clickAction,
    defaultFilter: config.treeFilter,
    defaultLayout: config.treeView,
    summariesAvailable: m.summariesAvailable,
    restoreToken: m.restoreToken,
    ...(m.hidden.length ? { hidden: m.hidden } : {}),
  };
}
