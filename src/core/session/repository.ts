// pi's directory layout (session-manager.js, config.js): `<agentDir>/sessions/--<encoded cwd>--/
// <ts>_<uuidv7>.jsonl`, `PI_CODING_AGENT_DIR` and `PI_CODING_AGENT_SESSION_DIR` honoured, flat custom
// session dirs filtered by the header's cwd. Plus create / fork / clone / delete as pi does them.
import { realpathSync, statSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { newEntryId, newSessionId, nowIso, SESSION_ID_RE } from '../format/ids.js';
import { toLine } from '../format/jsonl.js';
import { EntryNotFoundError, Session } from './session.js';
import { sliceDue, yieldSlice } from '../listing/infoRead.js';
import { SessionInfoCache, type SessionInfo } from '../listing/sessionInfo.js';
import { writeFileAtomic } from './storage.js';
import { moveToTrash } from '../platform/trash.js';
import {
  CURRENT_VERSION,
  messageOf,
  type CompactionEntry,
  type LabelEntry,
  type SessionHeader,
} from '../format/types.js';

export function expandTilde(p: string, home = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return join(home, p.slice(2));
  return p;
}

/** pi's resolvePath: tilde expansion, then an absolute, normalized path. */
export function resolvePath(p: string): string {
  return resolve(expandTilde(p));
}

/** `--<cwd without one leading separator, with / \ : replaced by ->--` (pi's getDefaultSessionDirPath). */
export function encodeCwd(cwd: string): string {
  return `--${resolvePath(cwd)
    .replace(/^[/\\]/, '')
    .replace(/[/\\:]/g, '-')}--`;
}

export interface RepositoryOptions {
  /** Environment to read PI_CODING_AGENT_DIR / PI_CODING_AGENT_SESSION_DIR from. */
  env?: NodeJS.ProcessEnv;
  /** Overrides the agent dir (else PI_CODING_AGENT_DIR, else ~/.pi/agent). */
  agentDir?: string;
  /** A flat custom session dir (else PI_CODING_AGENT_SESSION_DIR); a setting, like pi's `sessionDir`. */
  sessionDir?: string;
  cache?: SessionInfoCache;
  /** Told about every session file this repository writes (create, fork, clone). */
  onCreated?: (file: string) => void;
}

export interface ListOptions {
  signal?: AbortSignal;
  onProgress?: (loaded: number, total: number) => void;
  /** Each row as soon as it is read (in no particular order), before the sorted list is returned. */
  onInfo?: (info: SessionInfo) => void;
  /** A file left out of the list, or read only in part, and why (a FIFO, a line too long, …). */
  onSkip?: (file: string, reason: string) => void;
  /**
   * Whether `file` is known not to have changed since `checkedAt` (a performance.now() time), as a
   * watcher of its folder knows: its cached row is then used without a stat.
   */
  unchanged?: (file: string, checkedAt: number) => boolean;
}

export class SessionRepository {
  readonly agentDir: string;
  /** The flat custom dir, when one is configured. */
  readonly customDir: string | undefined;
  readonly cache: SessionInfoCache;
  private readonly onCreated: (file: string) => void;

  constructor(opts: RepositoryOptions = {}) {
    this.onCreated = opts.onCreated ?? (() => {});
    const env = opts.env ?? process.env;
    this.agentDir = resolvePath(opts.agentDir ?? env.PI_CODING_AGENT_DIR ?? join(homedir(), '.pi', 'agent'));
    const custom = opts.sessionDir || env.PI_CODING_AGENT_SESSION_DIR;
    this.customDir = custom ? resolvePath(custom) : undefined;
    this.cache = opts.cache ?? new SessionInfoCache();
  }

  get sessionsRoot(): string {
    return join(this.agentDir, 'sessions');
  }

  /**
   * Whether pi-tree lists the sessions of `dir`: the custom session dir when one is set, else a folder
   * directly in the sessions root (pi's `--<cwd>--` folders). Nothing else is read for family links.
   */
  listsFolder(dir: string): boolean {
    const d = resolve(dir);
    return this.customDir ? samePath(d, this.customDir) : samePath(dirname(d), this.sessionsRoot);
  }

  /** The directory that holds (or will hold) the sessions of `cwd`. */
  dirFor(cwd: string): string {
    return this.customDir ?? join(this.sessionsRoot, encodeCwd(cwd));
  }

  /** Sessions of one working directory, newest first (pi's SessionManager.list). */
  async list(cwd: string, opts: ListOptions = {}): Promise<SessionInfo[]> {
    const dir = this.dirFor(cwd);
    const infos = await this.readDir(dir, opts);
    const want = resolvePath(cwd);
    const filtered = this.customDir ? infos.filter((i) => i.cwd !== '' && samePath(resolvePath(i.cwd), want)) : infos;
    return sortByModified(filtered);
  }

  /** Every session (pi's listAll): all sub-directories of the sessions root, or the custom dir. */
  async listAll(opts: ListOptions = {}): Promise<SessionInfo[]> {
    if (this.customDir) return sortByModified(await this.readDir(this.customDir, opts));
    const dirs = await this.sessionFolders();
    const files = (await Promise.all(dirs.map((d) => jsonlFiles(d)))).flat();
    return sortByModified(await this.infos(files, opts));
  }

  /** The folders listAll reads: the custom dir, else every folder (or link to one) in the sessions root. */
  async sessionFolders(): Promise<string[]> {
    if (this.customDir) return [this.customDir];
    try {
      const ents = await readdir(this.sessionsRoot, { withFileTypes: true });
      return ents.filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => join(this.sessionsRoot, e.name));
    } catch {
      return [];
    }
  }

  private async readDir(dir: string, opts: ListOptions): Promise<SessionInfo[]> {
    return this.infos(await jsonlFiles(dir), opts);
  }

  private async infos(all: string[], opts: ListOptions): Promise<SessionInfo[]> {
    const out: SessionInfo[] = [];
    let loaded = 0;
    const add = (f: string, info: SessionInfo | null) => {
      const problem = this.cache.problems.get(f);
      if (problem) opts.onSkip?.(f, problem);
      if (info) {
        out.push(info);
        opts.onInfo?.(info);
      }
      opts.onProgress?.(++loaded, all.length);
    };
    // Files read before and unchanged since are answered from the cache: without a stat when a watcher
    // of the folder vouches for them (opts.unchanged), else after a stat each (same size and mtime). A
    // warm listing of thousands of sessions opens no file. Files never read are not stat'ed here (the
    // reader's fstat is their stat).
    const files: string[] = [];
    for (const f of all) {
      let info: SessionInfo | null | undefined;
      if (opts.unchanged) info = this.cache.known(f, opts.unchanged);
      if (info === undefined && this.cache.has(f)) {
        try {
          const at = performance.now();
          const st = statSync(f, { throwIfNoEntry: false });
          if (st?.isFile()) info = this.cache.peek(f, st.size, st.mtimeMs, at);
        } catch {
          // unreadable: the reader says why
        }
      }
      if (info === undefined) files.push(f);
      else add(f, info);
      if (sliceDue()) {
        opts.signal?.throwIfAborted();
        await yieldSlice();
      }
    }
    // One file at a time: the reads are synchronous (from the page cache they cost less than a round
    // trip through libuv's pool), in slices of the event loop, through one reused buffer.
    for (const f of files) {
      opts.signal?.throwIfAborted();
      add(f, await this.cache.get(f, opts.signal));
      if (sliceDue()) await yieldSlice();
    }
    return out;
  }

  /**
   * A new, empty session for `cwd` (header only, written at once), in pi's folder for `cwd` or in `dir`
   * (beside the session it came from: a header's cwd must not decide where a derived session lands).
   */
  async create(cwd: string, opts: { parentSession?: string; id?: string; dir?: string } = {}): Promise<string> {
    // (an empty cwd stays empty, as clone copies it: resolved, it would be this process's folder)
    const header = makeHeader(cwd === '' ? '' : resolvePath(cwd), opts.parentSession, opts.id);
    const file = this.fileName(opts.dir ?? this.dirFor(cwd), header);
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, toLine(header), { exclusive: true });
    this.onCreated(file);
    return file;
  }

  private fileName(dir: string, header: SessionHeader): string {
    if (!SESSION_ID_RE.test(header.id)) throw new Error(`Invalid session id "${header.id}"`);
    const name = `${header.timestamp.replace(/[:.]/g, '-')}_${header.id}.jsonl`;
    const file = join(dir, name);
    if (dirname(file) !== resolve(dir)) throw new Error(`Refusing to write outside ${dir}`);
    return file;
  }

  /**
   * pi's /fork: a new session holding the path up to (not including) the user message `entryId`.
   * Forking from the first message gives an empty session that remembers its parent.
   * Returns the new file and the message text (pi puts it back in the editor).
   */
  async fork(session: Session, entryId: string): Promise<{ file: string; text: string }> {
    refuseNewer(session, 'fork');
    const rec = session.index.get(entryId);
    if (!rec) throw new EntryNotFoundError(entryId);
    const entry = await session.getEntry(entryId);
    const msg = entry && messageOf(entry);
    if (!msg || msg.role !== 'user')
      throw new Error(
        `Entry ${entryId} is not a user message; fork starts before a user message (use clone for other entries).`,
      );
    const text = userText(msg.content);
    if (rec.parentId === null || !session.index.get(rec.parentId)) {
      const file = await this.writeBranched(session, -1);
      return { file, text };
    }
    return { file: await this.clone(session, rec.parentId), text };
  }

  /**
   * pi's /clone (createBranchedSession): a new session holding the root→entry path. `as`: the new
   * header's `cwd` (a variant runs in a folder of its own) and id; the file still goes beside the source.
   */
  async clone(
    session: Session,
    entryId: string | null = session.leafId,
    as: { cwd?: string; id?: string } = {},
  ): Promise<string> {
    refuseNewer(session, 'clone');
    if (entryId === null) throw new Error('Nothing to clone yet: the session has no entries.');
    const at = session.index.lookup(entryId);
    if (at < 0) throw new EntryNotFoundError(entryId);
    return this.writeBranched(session, at, as);
  }

  /**
   * Writes the new session holding the path root→record `leaf` (-1: none), streamed: the path's lines
   * are read, re-chained and written a batch at a time, so memory does not grow with the session.
   */
  private async writeBranched(session: Session, leaf: number, as: { cwd?: string; id?: string } = {}): Promise<string> {
    if (!session.path) throw new Error('An in-memory session cannot be forked to a file.');
    const index = session.index;
    const path = index.branchIdx(leaf);
    // Labels are re-emitted after the path for the entries that made it into the copy.
    const labelTargets = new Set(index.labels.keys());
    const copiedTargets = new Set<string>();
    const src = session.path;
    const header = makeHeader(as.cwd ?? (typeof session.header.cwd === 'string' ? session.header.cwd : ''), src, as.id);
    const dir = dirname(src);
    const file = this.fileName(dir, header);
    await writeFileAtomic(
      file,
      async (write) => {
        await write(toLine(header));
        // Drop label (and pi-tree leaf) records and re-chain around them, as pi 1.6.0's
        // createBranchedSession does. Unmigrated files come out as proper v3 files with their in-memory ids.
        const replacement = new Map<string, string>();
        const pending: string[] = [];
        let parent: string | null = null;
        const BATCH = 2000;
        for (let b = 0; b < path.length; b += BATCH) {
          const entries = await session.loadIdx(path.subarray(b, b + BATCH));
          let out = '';
          for (const e of entries) {
            if (!e) continue; // unreadable lines are left out, as a path walk leaves them out
            if (e.type === 'label' || e.type === 'leaf') {
              pending.push(e.id);
              continue;
            }
            for (const l of pending) replacement.set(l, e.id);
            pending.length = 0;
            if (e.type === 'compaction') {
              const c = e as CompactionEntry;
              out += toLine({
                ...c,
                parentId: parent,
                firstKeptEntryId:
                  c.firstKeptEntryId === c.id ? c.id : (replacement.get(c.firstKeptEntryId) ?? c.firstKeptEntryId),
              });
            } else out += toLine({ ...e, parentId: parent });
            if (labelTargets.has(e.id)) copiedTargets.add(e.id);
            parent = e.id;
          }
          if (out) await write(out);
        }
        const fresh = new Set<string>();
        let out = '';
        for (const [targetId, l] of index.labels) {
          if (!copiedTargets.has(targetId)) continue;
          const id = newEntryId({ has: (x) => fresh.has(x) || index.has(x) });
          fresh.add(id);
          out += toLine({
            type: 'label',
            id,
            parentId: parent,
            timestamp: l.timestamp,
            targetId,
            label: l.label,
          } satisfies LabelEntry);
          parent = id;
        }
        if (out) await write(out);
      },
      { exclusive: true },
    );
    this.onCreated(file);
    return file;
  }

  /** Moves a session file to the OS trash (never deletes silently); returns where it went. */
  async delete(file: string): Promise<string> {
    const s = await stat(file);
    if (!s.isFile() || !file.endsWith('.jsonl')) throw new Error(`${file} is not a session file.`);
    return moveToTrash(file);
  }
}

/**
 * A file of a newer format is read-only to pi-tree: copying its entries into a file labelled v3 would
 * claim they follow v3's rules when pi-tree cannot know that (unknown fields, changed meanings).
 */
function refuseNewer(session: Session, what: string): void {
  if (session.fileVersion > CURRENT_VERSION) {
    throw new Error(
      `Cannot ${what} this session: it is format v${session.fileVersion}, newer than the v${CURRENT_VERSION} pi-tree writes, and its copy would be mislabelled. Use a pi that knows v${session.fileVersion}.`,
    );
  }
}

function makeHeader(cwd: string, parentSession?: string, id = newSessionId()): SessionHeader {
  const h: SessionHeader = { type: 'session', version: CURRENT_VERSION, id, timestamp: nowIso(), cwd };
  if (parentSession) h.parentSession = resolve(parentSession);
  return h;
}

function userText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => (b as { type?: string })?.type === 'text')
    .map((b) => String((b as { text?: unknown }).text ?? ''))
    .join('');
}

async function jsonlFiles(dir: string): Promise<string[]> {
  try {
    // One join for the folder, not one per file (path.join normalizes: thousands of calls add up).
    const prefix = join(dir, '/');
    return (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).map((f) => prefix + f);
  } catch {
    return [];
  }
}

function sortByModified(list: SessionInfo[]): SessionInfo[] {
  return list.sort(
    (a, b) => b.modified.getTime() - a.modified.getTime() || basename(b.path).localeCompare(basename(a.path)),
  );
}

/** Compares paths canonically (symlinks resolved where possible; case-insensitive on Windows/macOS). */
export function samePath(a: string, b: string): boolean {
  const canon = (p: string) => {
    let r = resolve(p);
    try {
      r = realpathSync.native(r);
    } catch {
      // a path that does not exist compares as given
    }
    return process.platform === 'win32' || process.platform === 'darwin' ? r.toLowerCase() : r;
  };
  return canon(a) === canon(b);
}
