// One open session: its index, its storage, and every change pi-tree makes to it. Changes are appends
// of whole lines, serialized through one queue; each append first reads what other writers (pi, another
// window) appended, so the new entry's parent is always the file's real current leaf.
import { streamContextItems, type ContextItem, type ContextSource } from '../context/contextStream.js';
import { newEntryId } from '../format/ids.js';
import { toLine } from '../format/jsonl.js';
import { loadEntries, parseLineOf, StaleFileError, visitIdx, visitLines } from '../index/lineReads.js';
import { readSession, type LoadedSession, type ReadOptions } from '../index/reader.js';
import { readTail } from '../index/tailRead.js';
import type { EntryRecord, SessionIndex } from '../index/sessionIndex.js';
import { labelEntry, messageEntry, moveEntries, nameEntry, type SummaryInput } from './newEntries.js';
import { FileChangedError, JsonlStorage, MemoryStorage, type SessionStorage } from './storage.js';
import type { AgentMessage, Diagnostic, SessionContext, SessionEntry, SessionHeader } from '../format/types.js';

export type { SummaryInput } from './newEntries.js';

export interface MoveResult {
  /** False when the leaf already was at the target and nothing was written. */
  moved: boolean;
  leafRecordId?: string;
  summaryId?: string;
  leafId: string | null;
}

export type SessionChange = { kind: 'appended'; records: EntryRecord[] } | { kind: 'reloaded' };

export class ReadOnlyError extends Error {
  override name = 'ReadOnlyError';
}

export class EntryNotFoundError extends Error {
  override name = 'EntryNotFoundError';
  constructor(readonly entryId: string) {
    super(`Entry ${entryId} not found`);
  }
}

/** How long a change is built again (after a short pause) while another writer keeps appending. */
const WRITE_RETRY_MS = 5000;

export class Session {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(c: SessionChange) => void>();
  /** A reason set by the host (e.g. an untrusted workspace) to refuse every write. */
  writeBlocked: string | undefined;
  /** File size right after this session's own last write: a file still that size was last written by us. */
  ownWriteSize: number | undefined;

  private constructor(
    readonly storage: SessionStorage,
    private loaded: LoadedSession,
    private readonly readOpts: ReadOptions,
  ) {}

  static async open(path: string, opts: ReadOptions = {}): Promise<Session> {
    return Session.fromStorage(new JsonlStorage(path), opts);
  }

  static async fromStorage(storage: SessionStorage, opts: ReadOptions = {}): Promise<Session> {
    const src = await storage.openSource();
    try {
      return new Session(storage, await readSession(src, opts), opts);
    } finally {
      await src.close();
    }
  }

  /** A session held in memory (tests, previews). */
  static async inMemory(text: string): Promise<Session> {
    return Session.fromStorage(new MemoryStorage(text));
  }

  get path(): string | undefined {
    return this.storage.path;
  }
  get index(): SessionIndex {
    return this.loaded.index;
  }
  get header(): SessionHeader {
    return this.loaded.index.header;
  }
  get leafId(): string | null {
    return this.loaded.index.leafId;
  }
  get name(): string | undefined {
    return this.loaded.index.name;
  }
  get diagnostics(): readonly Diagnostic[] {
    return this.loaded.index.diagnostics;
  }
  get fileVersion(): number {
    return this.loaded.fileVersion;
  }
  get legacy(): boolean {
    return this.loaded.legacy;
  }
  /** Why this session cannot be written, or undefined when it can. */
  get readOnly(): string | undefined {
    return this.writeBlocked ?? this.loaded.readOnly;
  }
  /** Bytes of the file that have been read. */
  get readSize(): number {
    return this.loaded.state.size;
  }

  onChange(listener: (c: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(c: SessionChange): void {
    for (const l of this.listeners) l(c);
  }

  /** Picks up what other writers appended (or re-reads a rewritten file). */
  refresh(): Promise<SessionChange | undefined> {
    return this.enqueue(() => this.refreshNow());
  }

  private async refreshNow(): Promise<SessionChange | undefined> {
    const src = await this.storage.openSource();
    try {
      const { added, rewritten } = await readTail(src, this.loaded, this.readOpts);
      if (rewritten) {
        this.loaded = await readSession(src, this.readOpts);
        const c: SessionChange = { kind: 'reloaded' };
        this.emit(c);
        return c;
      }
      if (added.length) {
        const c: SessionChange = { kind: 'appended', records: added };
        this.emit(c);
        return c;
      }
      return undefined;
    } finally {
      await src.close();
    }
  }

  /** Full entries of `records` (bodies read from the file when not in memory). */
  async load(records: readonly EntryRecord[], signal?: AbortSignal): Promise<(SessionEntry | undefined)[]> {
    try {
      return await this.loadFrom(records, signal);
    } catch (e) {
      if (!(e instanceof StaleFileError)) throw e;
      // Someone rewrote the file under us (pi migrates old files on open): read it again.
      await this.refresh();
      return this.loadFrom(
        records.map((r) => this.index.get(r.id) ?? r),
        signal,
      );
    }
  }

  /**
   * Raw line bytes of `records` (those not held in memory), for readers that need only part of a line.
   * `bytes` is valid only during the call.
   */
  async visitLines(
    records: readonly EntryRecord[],
    visit: (index: number, rec: EntryRecord, bytes: Buffer) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const src = await this.storage.openSource();
    try {
      await visitLines(src, records, visit, { signal, sliceMs: this.readOpts.sliceMs });
    } finally {
      await src.close();
    }
  }

  /** Full entries of records `idx` (by number: no record objects are made or kept). */
  async loadIdx(idx: Int32Array, signal?: AbortSignal): Promise<(SessionEntry | undefined)[]> {
    const index = this.index;
    const out: (SessionEntry | undefined)[] = Array.from(idx, (i) => index.entryOf(i));
    try {
      await this.visitIdx(idx, (k, i, bytes) => (out[k] = parseLineOf(index.idOf(i), bytes)), signal);
    } catch (e) {
      if (!(e instanceof StaleFileError)) throw e;
      // Rewritten under us (pi migrates old files on open): the records are read again by id.
      return this.load(
        Array.from(idx, (i) => index.view(i)),
        signal,
      );
    }
    return out;
  }

  /** visitLines over record numbers (see SessionIndex): no record objects for big sessions. */
  async visitIdx(
    idx: ArrayLike<number>,
    visit: (k: number, i: number, bytes: Buffer) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const src = await this.storage.openSource();
    try {
      await visitIdx(src, this.index, idx, visit, { signal, sliceMs: this.readOpts.sliceMs });
    } finally {
      await src.close();
    }
  }

  private async loadFrom(records: readonly EntryRecord[], signal?: AbortSignal): Promise<(SessionEntry | undefined)[]> {
    const src = await this.storage.openSource();
    try {
      return await loadEntries(src, records, { signal, sliceMs: this.readOpts.sliceMs });
    } finally {
      await src.close();
    }
  }

  async getEntry(id: string): Promise<SessionEntry | undefined> {
    const rec = this.index.get(id);
    if (!rec) return undefined;
    return (await this.load([rec]))[0];
  }

  /** Root→id entries (default: the current leaf), like pi's getBranch. Unreadable lines are left out. */
  async getBranch(id: string | null = this.leafId, signal?: AbortSignal): Promise<SessionEntry[]> {
    const recs = this.index.branch(id);
    const entries = await this.load(recs, signal);
    return entries.filter((e): e is SessionEntry => !!e);
  }

  /**
   * What the model sees with the leaf at `leafId` (default: the current leaf). `messages` equals pi
   * 1.6.0's buildSessionContext().messages for the same leaf.
   */
  async buildContext(
    leafId: string | null = this.leafId,
    signal?: AbortSignal,
  ): Promise<SessionContext & { path: string[] }> {
    const messages: AgentMessage[] = [];
    // (pushed one by one: a spread of a long context overflows the stack)
    const rest = await this.streamContext(leafId, (m) => m.forEach((x) => messages.push(x)), { signal });
    return { messages, ...rest };
  }

  /**
   * The context at `leafId`, its messages handed to `emit` in order, a batch at a time, so that a huge
   * context never has to be in memory whole. Same selection as pi's buildSessionProjection: the latest
   * compaction, its kept range (without system messages), then everything after it; context edits
   * applied. Only those bodies are read — before the kept range, just what sets the thinking level, the
   * model or the tools.
   */
  async streamContext(
    leafId: string | null,
    emit: (messages: AgentMessage[]) => void,
    opts: { signal?: AbortSignal; batch?: number } = {},
  ): Promise<Omit<SessionContext, 'messages'> & { path: string[] }> {
    return streamContextItems(this.contextSource(), leafId, emit as (items: ContextItem[]) => void, {
      ...opts,
      raw: false,
    });
  }

  /**
   * Like streamContext, but a stored message that goes into the context unchanged comes as its raw
   * JSON bytes (`{ raw }`), copied from the file without being parsed — for writers of JSON output.
   */
  streamContextRaw(
    leafId: string | null,
    emit: (items: ContextItem[]) => void,
    opts: { signal?: AbortSignal; batch?: number } = {},
  ): Promise<Omit<SessionContext, 'messages'> & { path: string[] }> {
    return streamContextItems(this.contextSource(), leafId, emit, { ...opts, raw: true });
  }

  private contextSource(): ContextSource {
    return {
      index: this.index,
      load: (r, signal) => this.load(r, signal),
      openSource: () => this.storage.openSource(),
      sliceMs: this.readOpts.sliceMs,
    };
  }

  // ───────────────────────────── writes ─────────────────────────────

  /** A write: in this process's queue, and under the file's lock against other pi-tree processes. */
  private enqueueWrite<T>(op: () => Promise<T>): Promise<T> {
    return this.enqueue(() => this.storage.withLock(op));
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Appends entries built from the settled leaf. `build` gets the current leaf and an id factory and
   * returns the entries to write (in order; it may throw to refuse); they are written in one call.
   */
  appendEntries(build: (leafId: string | null, newId: () => string) => SessionEntry[]): Promise<SessionEntry[]> {
    return this.writeSettled(() => build(this.leafId, this.idFactory()));
  }

  /**
   * The one way a change is written: `plan` builds it from the index as just read (and checks it:
   * a refusal throws before anything is written); a v1/v2 file is migrated only when something is to
   * be written. Should another writer (pi) append between the read and the append, the file's size
   * no longer matches and the change is built again on what it wrote, so it never hangs off a stale leaf.
   */
  private writeSettled<T extends SessionEntry[] | { entries: SessionEntry[] }>(plan: () => T): Promise<T> {
    return this.enqueueWrite(async () => {
      const until = performance.now() + WRITE_RETRY_MS;
      for (let attempt = 1; ; attempt++) {
        const ro = this.readOnly;
        if (ro) throw new ReadOnlyError(`This session is read-only: ${ro}.`);
        await this.refreshNow();
        const planned = plan();
        const entries = Array.isArray(planned) ? planned : planned.entries;
        if (!entries.length) return planned;
        if (this.loaded.legacy) await this.migrateFile();
        try {
          await this.storage.append(entries.map(toLine).join(''), this.loaded.state.size);
        } catch (e) {
          if (!(e instanceof FileChangedError)) throw e;
          if (performance.now() > until)
            throw new Error(
              `Another program (pi?) kept appending to this session for ${WRITE_RETRY_MS / 1000} s: nothing was written. Try again once it is idle.`,
              { cause: e },
            );
          await new Promise((r) => setTimeout(r, Math.min(2 ** attempt, 20)));
          continue;
        }
        await this.refreshNow();
        this.ownWriteSize = this.loaded.state.size;
        return planned;
      }
    });
  }

  /** New entry ids, unique in the index and among those already handed out for this write. */
  private idFactory(): () => string {
    const taken = new Set<string>();
    return () => {
      const id = newEntryId({ has: (x) => taken.has(x) || this.index.has(x) });
      taken.add(id);
      return id;
    };
  }

  /**
   * Rewrites a v1/v2 file as v3 (atomically, original kept as `<file>.v<N>.bak`). A file with lines
   * pi-tree could not read is read-only instead (reader.ts): the rewrite would not hold them.
   */
  private async migrateFile(): Promise<void> {
    // Every record, a repeated id's too: the rewrite keeps every line the file had.
    const recs = Array.from({ length: this.index.count }, (_, i) => this.index.view(i));
    const entries = await this.load(recs);
    const lines = [toLine(this.header), ...entries.filter((e): e is SessionEntry => !!e).map(toLine)];
    await this.storage.replace(lines.join(''), `.v${this.loaded.fileVersion}.bak`);
    const src = await this.storage.openSource();
    try {
      this.loaded = await readSession(src, this.readOpts);
    } finally {
      await src.close();
    }
    this.emit({ kind: 'reloaded' });
  }

  async appendMessage(message: AgentMessage): Promise<string> {
    const [e] = await this.appendEntries((parentId, id) => [messageEntry(id(), parentId, message)]);
    return e.id;
  }

  /** Moves the leaf to `targetId` (newEntries.ts: moveEntries), with a branch summary when given. */
  async moveTo(targetId: string | null, summary?: SummaryInput): Promise<MoveResult> {
    let leafRecordId: string | undefined;
    let summaryId: string | undefined;
    const { moved } = await this.writeSettled(() => {
      if (targetId !== null && !this.index.has(targetId)) throw new EntryNotFoundError(targetId);
      const from = this.leafId;
      if (from === targetId && !summary) return { entries: [], moved: false };
      const move = moveEntries(targetId, from, summary, this.idFactory());
      ({ leafRecordId, summaryId } = move);
      return { entries: move.entries, moved: true };
    });
    return moved ? { moved, leafRecordId, summaryId, leafId: this.leafId } : { moved, leafId: this.leafId };
  }

  /** Sets (or with an empty/absent label clears) a label; attached to the current leaf like pi's. */
  async setLabel(targetId: string, label?: string): Promise<string> {
    const text = label?.trim();
    const [e] = await this.appendEntries((parentId, id) => {
      if (!this.index.has(targetId)) throw new EntryNotFoundError(targetId);
      return [labelEntry(id(), parentId, targetId, text)];
    });
    return e.id;
  }

  /** Names the session (pi's appendSessionInfo: newlines become spaces, trimmed; empty clears). */
  async setName(name: string): Promise<string> {
    const [e] = await this.appendEntries((parentId, id) => [nameEntry(id(), parentId, name)]);
    return e.id;
  }
}
