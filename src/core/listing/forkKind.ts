// Whether a session that came from another (its header's `parentSession`) is a fork or a clone. pi
// writes both the same way (createBranchedSession: the path copied with its ids and times, then the new
// session's own entries), so the file does not say. What differs is where the copy stops: pi's /fork
// goes back before a user message (the fork's last copied entry is the parent of a user message the
// source had when the fork was made; before the first message nothing is copied), /clone copies up to
// the current leaf. Both questions are answered from bytes, without an index: the child's copied
// entries (pi's key order puts type, id, parentId and timestamp first) and the source's lines that hang
// under the last of them. Both answers concern entries written before the child was made, which never
// change: each is cached for good. A clone of an entry that has a user message under it is the same file
// as a fork before that message: what pi-tree made itself it notes (ForkKinds.note).
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { readLines } from './infoRead.js';

export type ForkKind = 'fork' | 'clone';

/** The first keys of an entry line as pi writes it. */
const HEAD =
  /^\{"type":"([^"\\]{1,64})","id":"([^"\\]{1,128})","parentId":(?:null|"[^"\\]{0,128}"),"timestamp":"([^"\\]{1,40})"/;
const HEAD_BYTES = 400;

/** Reads `file`'s lines, giving each line's first bytes to `head` until it returns true (stop). */
async function scanHeads(file: string, head: (text: string) => boolean | void, signal?: AbortSignal): Promise<boolean> {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return false;
  }
  let stopped = false;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return false;
    const take = (buf: Buffer, start: number, end: number) => {
      if (stopped) return;
      if (head(buf.toString('utf8', start, Math.min(end, start + HEAD_BYTES)))) {
        stopped = true;
        stop.abort();
      }
    };
    await readLines(
      fd,
      0,
      st.size,
      1,
      64 * 1024,
      { line: take, oversize: (h) => take(h, 0, h.length) },
      stop.signal,
    ).catch((e) => {
      if (!stopped) throw e;
    });
    return true;
  } catch {
    return false;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    closeSync(fd);
  }
}

/**
 * The id of the last entry `file` copied from its source (the one where they part), null when it copied
 * none (a fork before the first message), undefined when it cannot be read. Copied entries keep their
 * times, older than the file's header (`created`); labels are written again after the path.
 */
export async function copiedTip(
  file: string,
  created: number,
  signal?: AbortSignal,
): Promise<string | null | undefined> {
  let tip: string | null = null;
  let first = true;
  const ok = await scanHeads(
    file,
    (text) => {
      if (first) {
        first = false; // the header
        return;
      }
      const m = HEAD.exec(text);
      if (!m) return;
      if (m[1] === 'label') return;
      const t = Date.parse(m[3]);
      if (!(t < created)) return true; // the child's own entries start here
      tip = m[2];
    },
    signal,
  );
  return ok ? tip : undefined;
}

/** Whether `source` holds a user message under entry `parentId` written before `before` (ms); undefined when unreadable. */
export async function userChildBefore(
  source: string,
  parentId: string,
  before: number,
  signal?: AbortSignal,
): Promise<boolean | undefined> {
  const needle = `,"parentId":${JSON.stringify(parentId)},"timestamp":"`;
  let found = false;
  const ok = await scanHeads(
    source,
    (text) => {
      if (!text.includes(needle) || !text.startsWith('{"type":"message"')) return;
      const m = HEAD.exec(text);
      if (!m || !(Date.parse(m[3]) < before)) return;
      if (/"message":\{"role":"user"/.test(text)) return (found = true);
    },
    signal,
  );
  return ok ? found : undefined;
}

/** The kinds of the sessions it was asked about, cached by what decides them (see the top of the file). */
export class ForkKinds {
  private readonly known = new Map<string, Promise<ForkKind | undefined>>();

  /** What the kind of `s` is once known (synchronously), or undefined. */
  private readonly settled = new Map<string, ForkKind | undefined>();

  /**
   * What the maker of `path` knows (pi-tree's own Clone and Fork): it wins over the guess from the bytes,
   * which cannot tell a clone of an entry with a user message under it from a fork before that message
   * (the two files are the same).
   */
  note(path: string, kind: ForkKind): void {
    this.noted.set(path, kind);
    this.settled.set(path, kind);
  }

  private readonly noted = new Map<string, ForkKind>();

  /** A session's kind: fork or clone; undefined when it came from nothing, or its files cannot be read. */
  kindOf(
    s: { path: string; created: Date; parentSessionPath?: string },
    signal?: AbortSignal,
  ): Promise<ForkKind | undefined> {
    if (!s.parentSessionPath) return Promise.resolve(undefined);
    const noted = this.noted.get(s.path);
    if (noted) return Promise.resolve(noted);
    const key = `${s.path}\u0000${s.created.getTime()}\u0000${s.parentSessionPath}`;
    let p = this.known.get(key);
    if (!p) {
      p = this.decide(s.path, s.parentSessionPath, s.created.getTime(), signal).then((k) => {
        // an unreadable file is asked again next time
        if (k === undefined) this.known.delete(key);
        else this.settled.set(s.path, k);
        return k;
      });
      this.known.set(key, p);
    }
    return p;
  }

  /** The kind already decided for `path`, if any. */
  peek(path: string): ForkKind | undefined {
    return this.settled.get(path);
  }

  private async decide(
    file: string,
    source: string,
    created: number,
    signal?: AbortSignal,
  ): Promise<ForkKind | undefined> {
    const tip = await copiedTip(file, created, signal);
    if (tip === undefined) return undefined;
    if (tip === null) return 'fork';
    const under = await userChildBefore(source, tip, created, signal);
    return under === undefined ? undefined : under ? 'fork' : 'clone';
  }
}
