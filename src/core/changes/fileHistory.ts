// What the session knew of a file before a given entry, from the session alone: the last `write` of
// the file on the path (its content), or the last full `read` (its output), with the edits made since
// applied as pi applies them. Used as the left side of a write's diff. Never reads the user's files.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { applyEdits, callsOf, editsOf, pathArg, type Replacement } from './codeChanges.js';
import type { Session } from '../session/session.js';
import type { EntryRecord } from '../index/sessionIndex.js';
import { messageOf, type SessionEntry } from '../format/types.js';

type Obj = Record<string, unknown>;

export interface KnownContent {
  text: string;
  /** The entry whose write or read gave the base text, and how. */
  baseEntryId: string;
  how: 'write' | 'read';
  /** Edits applied on top of the base. */
  edits: number;
}

/** A tool's path as pi resolves it (`@` prefix dropped, `~` expanded, relative to the session's cwd). */
export function resolveToolPath(p: string, cwd: string, home = homedir()): string {
  let s = p.replace(/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, ' ');
  if (s.startsWith('@')) s = s.slice(1);
  if (s === '~') s = home;
  else if (s.startsWith('~/')) s = home + s.slice(1);
  return resolve(cwd || '/', s);
}

const TRAILER = /\n\n\[(Showing lines \d+-\d+ of \d+|\d+ more lines in file)[^\]]*\]$/;

/** The file text a read's result holds, when it read the whole file (no range, not cut, no image). */
function fullRead(call: { arguments: unknown }, result: SessionEntry): string | undefined {
  const args = (call.arguments ?? {}) as Obj;
  if ((args.offset !== undefined && Number(args.offset) > 1) || args.limit !== undefined) return undefined;
  const m = messageOf(result);
  if (!m || m.isError) return undefined;
  const details = m.details as Obj | undefined;
  if (details && (details.truncation as Obj | undefined)?.truncated) return undefined;
  const content = Array.isArray(m.content) ? (m.content as Obj[]) : [];
  if (content.length !== 1 || content[0]?.type !== 'text' || typeof content[0].text !== 'string') return undefined;
  const text = content[0].text;
  if (TRAILER.test(text) || text.startsWith('Read image file') || /^\[Line \d+ is .* exceeds /.test(text))
    return undefined;
  return text;
}

const BATCH = 256;

/**
 * The content of `file` (a path as a tool named it) just before `path[at]` ran, from the entries before
 * it on `path` (root first). Undefined when nothing before it wrote or wholly read the file, or when an
 * edit since cannot be applied to what is known.
 */
export async function contentBefore(
  session: Session,
  path: readonly EntryRecord[],
  at: number,
  file: string,
  signal?: AbortSignal,
): Promise<KnownContent | undefined> {
  const cwd = String(session.header.cwd ?? '');
  const target = resolveToolPath(file, cwd);
  const same = (p: string | undefined) => p !== undefined && resolveToolPath(p, cwd) === target;
  const results = new Map<string, SessionEntry>();
  const failed = new Set<string>();
  const pending: Replacement[][] = [];
  const candidates = path
    .slice(0, Math.max(0, at))
    .filter((r) => r.type === 'message' && (r.role === 'assistant' || r.role === 'toolResult'));
  for (let end = candidates.length; end > 0; end -= BATCH) {
    const slice = candidates.slice(Math.max(0, end - BATCH), end);
    const entries = await session.load(slice, signal);
    for (let k = entries.length - 1; k >= 0; k--) {
      const e = entries[k];
      const m = e && messageOf(e);
      if (!e || !m) continue;
      if (m.role === 'toolResult') {
        const id = String(m.toolCallId ?? '');
        if (m.isError) failed.add(id);
        else if (m.toolName === 'read') results.set(id, e);
        continue;
      }
      const calls = callsOf(e);
      for (let c = calls.length - 1; c >= 0; c--) {
        const call = calls[c];
        if (failed.has(call.id) || !same(pathArg(call.arguments))) continue;
        if (call.name === 'edit') pending.push(editsOf(call.arguments));
        else if (call.name === 'write') {
          const content = (call.arguments as Obj).content;
          if (typeof content === 'string') return replay(content, e.id, 'write', pending);
        } else if (call.name === 'read') {
          const r = results.get(call.id);
          const text = r && fullRead(call, r);
          if (text !== undefined) return replay(text, e.id, 'read', pending);
        }
      }
    }
  }
  return undefined;
}

function replay(
  base: string,
  baseEntryId: string,
  how: 'write' | 'read',
  pending: Replacement[][],
): KnownContent | undefined {
  let text: string | undefined = base;
  // `pending` holds the edits newest first.
  for (let i = pending.length - 1; i >= 0 && text !== undefined; i--) text = applyEdits(text, pending[i]);
  return text === undefined ? undefined : { text, baseEntryId, how, edits: pending.length };
}
