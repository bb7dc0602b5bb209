// Capture, as the bridge runs it inside pi: a snapshot of the working folder (snapshotSource.ts says
// from where: the folder watcher's list, or git's walk) before the first call of a
// turn that may change files (keyed by the entry before the assistant message: the code as it was when
// the message was sent, or after the previous turn), and one at the end of such a turn (keyed by the
// assistant message and its tool results: the code after the calls). Files outside the folder that an
// `edit` or `write` names are captured before and after too. Snapshots run one at a time in a queue; the
// end-of-turn one does not hold pi up, a tool call waits only for what must come before it. Any error
// turns capture off for the session, with one message in pi and one line in the manifest for pi-tree.
// A working folder that is the home folder, a drive's root or far too large is not captured unless the
// user opts in (captureScope.ts; one message in pi). The store's caps are kept as the session grows: the
// session's own after each snapshot that adds bytes, the total from an estimate recounted now and then;
// what is dropped is collected in the background (never while a tool call waits).
import { mayChangeFiles } from '../toolKinds.js';
import { isAbsolute, relative, sep } from 'node:path';
import { existsSync } from 'node:fs';
import { resolveToolPath } from '../../changes/fileHistory.js';
import type { ExternalFile, SkippedFile, SnapshotKind, SnapshotLine } from '../store/manifestLines.js';
import { CheckpointStore, SKIPPED_KEPT, type SnapshotResult } from '../store/store.js';
import { isTreeChange } from '../store/treeReads.js';
import { captureEnabled, type CheckpointSettings } from '../store/storePaths.js';
import { refName } from '../store/retention.js';
import { StoreCaps } from '../store/storeCaps.js';
import { othersNewest } from '../store/projectLatest.js';
import { FolderWatch, type FolderWatchOptions } from './folderWatch.js';
import { SnapshotSource } from './snapshotSource.js';
import { captureBlocked, type FolderWalk } from './captureScope.js';
import { baselineFields, resumedFrom, scopeOf, writeOffLine, type Resumed } from './captureStart.js';
import { leadsOutside, readSide, type OutsideBefore } from './outsideFiles.js';

const PACK_EVERY = 50;

export interface CaptureOptions {
  agentDir: string;
  cwd: string;
  sessionId: string;
  settings: CheckpointSettings;
  /** One message in pi when capture turns itself off. */
  notify: (message: string) => void;
  log?: (message: string) => void;
  program?: string;
  env?: NodeJS.ProcessEnv;
  /** Longest a snapshot may take before capture gives up for the session (default 20 s). */
  timeoutMs?: number;
  /** The loose objects are packed every this many turns that may have changed files (default 50). */
  packEvery?: number;
  /** The folder watcher's limits, or false for none (default: on where supported and the settings allow). */
  watch?: Pick<FolderWatchOptions, 'maxEvents' | 'maxDirs'> | false;
  /** false: the watcher's list goes to git, never to the in-process writer (the bench compares the two). */
  inProcess?: boolean;
  /** Folders of the agent's own besides `agentDir` (pi's session folder, the bridge's records): never captured. */
  privateDirs?: readonly string[];
  /** Unreachable objects younger than this survive a collect (default a minute; tests use 0). */
  pruneGraceMs?: number;
}

interface Turn {
  before?: { tree: string };
  /** Outside files touched this turn: their content before the first call that named them. */
  external: Map<string, OutsideBefore>;
  /** Paths the turn's calls named that no snapshot can hold (written through a link to outside the folder). */
  notes: Map<string, SkippedFile>;
}

export class Capture {
  private store: Promise<CheckpointStore> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private offReason: string | undefined;
  private latestTree: string | undefined;
  /** When the line of `latestTree` was written (another session's newer line moved the folder since). */
  private latestAt: string | undefined;
  private turnsSincePack = 0;
  private turn: Turn | undefined;
  private readonly log: (m: string) => void;
  /** Snapshot times in ms (`listed`: git looked only at the watcher's list), for the bench and the log. */
  readonly timings: { kind: SnapshotKind; ms: number; listed: boolean; inProcess: boolean }[] = [];
  /** Where a snapshot's tree comes from: the folder watcher's list, or git's walk of the folder. */
  private readonly source: SnapshotSource;
  private closing = false;
  /** Why the folder is not captured (home, root, pi's own folder, too large): said once in pi. */
  private blocked: string | undefined;
  /** Where the session's code was when it last ran (the baseline is compared with it). */
  private resumed: Resumed | undefined;
  /** The store's caps, kept as the session grows. */
  private readonly caps: StoreCaps;

  constructor(private readonly o: CaptureOptions) {
    this.log = o.log ?? (() => {});
    this.source = new SnapshotSource({
      sessionId: o.sessionId,
      watch: o.watch,
      inProcess: o.inProcess,
      timeoutMs: o.timeoutMs ?? 20_000,
      log: this.log,
      notify: o.notify,
    });
    this.caps = new StoreCaps(o.settings, o.sessionId, this.log);
    if (!captureEnabled(o.settings, o.cwd)) this.offReason = 'checkpoints are turned off for this folder';
    else this.blocked = captureBlocked(o.settings, o.cwd, { agentDir: o.agentDir, privateDirs: o.privateDirs });
  }

  get off(): string | undefined {
    return this.offReason;
  }

  /** The session started at `leafId`: a baseline in the background (it warms the index, so turns stay fast). */
  start(leafId: string | null): void {
    if (this.offReason) return;
    if (this.blocked) return this.block(this.blocked, false);
    let walk: FolderWalk | undefined;
    void this.enqueue(async () => {
      const scope = await scopeOf({
        agentDir: this.o.agentDir,
        cwd: this.o.cwd,
        settings: this.o.settings,
        privateDirs: this.o.privateDirs,
      });
      if (scope.blocked) return this.block(scope.blocked, true);
      walk = scope.walk;
      this.log(
        `checkpoints: ${walk.files}${walk.capped ? '+' : ''} files to capture (walked in ${Math.round(walk.ms)} ms)`,
      );
      // The session ran before: its latest snapshot is where its code was (a killed turn, the user's changes since).
      this.resumed = await resumedFrom(await this.openStore(), this.o.sessionId);
      if (this.resumed) {
        this.latestTree = this.resumed.line.tree;
        this.latestAt = this.resumed.line.at;
      }
    });
    void this.enqueue(() => this.take('baseline', [], undefined, leafId, walk));
    // Over its caps, the store loses its oldest snapshots (in the queue: after the baseline, before turns).
    void this.enqueue(async () => this.keepCaps(await this.openStore()));
    // The watcher is armed once the baseline has made the index (it asks the index which ignored
    // folders hold nothing tracked); until then, and for the first snapshot after, git walks it all.
    if (this.o.watch !== false && this.o.settings.watch !== false && FolderWatch.supported())
      void this.enqueue(async () => this.source.arm(await this.openStore()));
  }

  /** Resolves once the watcher is armed (true) or given up (false); call after the start's queue is flushed. */
  watchArmed(): Promise<boolean> {
    return this.source.armed();
  }

  /** Whether snapshots can take the folder watcher's list now (tests, the bench). */
  get watching(): boolean {
    return this.source.watching;
  }

  /** How long arming the watcher took and how many folders it watches (the bench, the log). */
  get watchArm(): { ms: number; dirs: number } | undefined {
    return this.source.watchArm;
  }

  /**
   * pi is idle: the snapshots that took the watcher's word are checked against a whole walk (in the
   * queue; a turn that starts meanwhile goes first). If the walk finds a change the watcher did not
   * hear, the watcher is dropped for the session: whole walks from then on.
   */
  idle(): void {
    if (this.offReason || !this.source.checkDue()) return;
    void this.enqueue(async () => {
      // (a session ending does not wait for a check: `pi -p` exits right after its answer)
      if (!this.turn && !this.closing) await this.source.check(await this.openStore());
    });
  }

  /** Before a tool runs. Resolves once whatever must precede the call is captured; never rejects. */
  async beforeTool(
    toolName: string,
    input: unknown,
    assistant: { id: string; parentId: string | null } | undefined,
  ): Promise<void> {
    if (this.offReason || !mayChangeFiles(toolName)) return;
    try {
      if (!this.turn) {
        const turn: Turn = { external: new Map(), notes: new Map() };
        this.turn = turn;
        await this.enqueue(async () => {
          const line = await this.take('before', assistant?.parentId ? [assistant.parentId] : []);
          if (line) turn.before = { tree: line.tree };
        });
      }
      if (toolName === 'edit' || toolName === 'write') this.noteExternal(input);
      await this.queue;
    } catch (e) {
      this.turnOff(e);
    }
  }

  /** A turn ended (its entries are in the file). Snapshots in the background if the turn may have changed files. */
  turnEnd(messageEntryId: string | undefined, toolResultEntryIds: readonly string[]): Promise<void> {
    const turn = this.turn;
    this.turn = undefined;
    if (this.offReason || !turn) return Promise.resolve();
    const entries = [messageEntryId, ...toolResultEntryIds].filter((x): x is string => typeof x === 'string');
    const done = this.enqueue(() => this.take('after', entries, turn)).then(() => undefined);
    // A turn's snapshots write some 20 loose objects (its files, the folders above them, two commits), a
    // file and a disk block each: every so often they go into one pack, after the turn's snapshot, in
    // the background (a failure is logged, capture goes on).
    if (++this.turnsSincePack >= (this.o.packEvery ?? PACK_EVERY)) {
      this.turnsSincePack = 0;
      void this.enqueue(async () => {
        await (
          await this.openStore()
        )
          .packLoose()
          .catch((e: unknown) =>
            this.log(`checkpoints: packing the store failed: ${e instanceof Error ? e.message : String(e)}`),
          );
      });
    }
    return done;
  }

  /**
   * Runs `op` alone in the queue (a restore through pi: no snapshot runs while it writes). The next
   * 'before' snapshot compares with the store's latest line, which the restore wrote.
   */
  async exclusive<T>(op: () => Promise<T>): Promise<T> {
    let out: { v: T } | { e: unknown } | undefined;
    const run = this.queue.then(async () => {
      try {
        out = { v: await op() };
      } catch (e) {
        out = { e };
      }
    });
    this.queue = run;
    await run;
    this.source.forget();
    // The restore recorded where the code is: changes after it (the user's, before the next turn) count from there.
    const recorded = await this.openStore()
      .then((s) => s.manifest(this.o.sessionId).findLast((l): l is SnapshotLine => l.kind !== 'off'))
      .catch(() => undefined);
    this.latestTree = recorded?.tree;
    this.latestAt = recorded?.at;
    if (!out) throw new Error('the restore did not run');
    if ('e' in out) throw out.e;
    return out.v;
  }

  /** Waits for every queued snapshot and the collect they started (session shutdown, tests). */
  async flush(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.caps.collected();
  }

  /** The session ended: its queued snapshots are taken (and their collect done), the watcher closed. */
  async close(): Promise<void> {
    this.closing = true;
    await this.flush();
    this.caps.stop();
    await this.source.close();
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T | undefined> {
    const run = this.queue.then(async () => {
      if (this.offReason) return undefined;
      try {
        return await op();
      } catch (e) {
        this.turnOff(e);
        return undefined;
      }
    });
    this.queue = run;
    return run;
  }

  private openStore(): Promise<CheckpointStore> {
    this.store ??= CheckpointStore.open(this.o.agentDir, this.o.cwd, this.o.settings, {
      program: this.o.program,
      env: this.o.env,
      privateDirs: this.o.privateDirs,
      pruneGraceMs: this.o.pruneGraceMs,
    });
    return this.store;
  }

  private async take(
    kind: SnapshotKind,
    entries: string[],
    turn?: Turn,
    target?: string | null,
    walk?: FolderWalk,
  ): Promise<SnapshotLine | undefined> {
    const store = await this.openStore();
    // Marked in flight from its first object to its ref: a collect meanwhile keeps what it writes.
    const line = await store.inFlight(() => this.shoot(store, kind, entries, turn, target, walk));
    if (line.bytes) await this.keepCaps(store, line.bytes);
    return line;
  }

  /** The store's caps kept (a failure is logged: it is no reason to stop capturing). */
  private async keepCaps(store: CheckpointStore, added?: number): Promise<void> {
    await this.caps
      .keep(store, added)
      .catch((e: unknown) =>
        this.log(`checkpoints: pruning the store failed: ${e instanceof Error ? e.message : String(e)}`),
      );
  }

  private async shoot(
    store: CheckpointStore,
    kind: SnapshotKind,
    entries: string[],
    turn?: Turn,
    target?: string | null,
    walk?: FolderWalk,
  ): Promise<SnapshotLine> {
    // What the snapshot adds to the store: the objects new since the session's previous snapshot (its
    // files, the folders above them, the commit), as stored. Without one (the first snapshot, or the
    // first after a restore), the store's own growth: `count-objects` lists every loose object, which
    // at 100k files is too slow for every turn.
    // This session's checkpoints were deleted while its pi runs (Delete Checkpoints): the previous tree
    // went with them (a collect frees it once it is a minute old), so this snapshot takes git's walk, as
    // the first one does, instead of building on that tree.
    if (this.latestTree !== undefined && !existsSync(store.manifestFile(this.o.sessionId))) {
      this.latestTree = undefined;
      this.source.forget();
    }
    const prev = this.latestTree;
    const sizeBefore = prev === undefined ? await store.sizeBytes() : 0;
    const { snap, fast, listed } = await this.source.shoot(store, `${kind} ${entries.join(' ')}`.trim());
    this.timings.push({ kind, ms: snap.ms, listed, inProcess: !!fast });
    const line: SnapshotLine = {
      v: 1,
      kind,
      entries,
      commit: snap.commit,
      tree: snap.tree,
      at: new Date().toISOString(),
      ...(target ? { target } : {}),
      ...skippedOf(snap, turn ? [...turn.notes.values()] : []),
      ...(snap.modes ? { modes: snap.modes } : {}),
    };
    const fastChanges = fast && prev === fast.from ? fast.changes : undefined;
    const sincePrev =
      fastChanges ??
      (prev !== undefined && prev !== snap.tree ? await store.diffTrees(prev, snap.tree, { trees: true }) : []);
    const pathsOf = (d: typeof sincePrev) => d.filter((c) => !isTreeChange(c)).map((c) => c.path);
    if (kind === 'before') {
      // The user's changes between turns count from where the folder was left: another session's turn or
      // restore since this one's line moved it, and what it changed is that agent's, not the user's.
      const moved = prev !== undefined ? this.movedTo(store) : undefined;
      if (moved === undefined) {
        if (sincePrev.length) line.between = pathsOf(sincePrev);
      } else {
        const elsewhere = moved === prev ? [] : pathsOf(await store.diffTrees(prev!, moved, { trees: true }));
        const between = moved === snap.tree ? [] : pathsOf(await store.diffTrees(moved, snap.tree, { trees: true }));
        if (elsewhere.length) line.elsewhere = elsewhere;
        if (between.length) line.between = between;
      }
    }
    if (kind === 'after' && turn?.before && turn.before.tree !== snap.tree)
      line.changed =
        turn.before.tree === prev ? pathsOf(sincePrev) : await this.changedPaths(store, turn.before.tree, snap.tree);
    if (kind === 'after' && turn?.external.size) line.external = await this.externalsAfter(store, turn);
    if (kind === 'baseline')
      await baselineFields(store, line, prev !== undefined ? pathsOf(sincePrev) : undefined, this.resumed, walk);
    const added = new Set([
      ...(fastChanges ? fast!.written : sincePrev.flatMap((c) => (c.b ? [c.b.sha] : []))),
      ...(line.external ?? []).flatMap((x) => [x.sha ?? '', x.before?.sha ?? '']),
    ]);
    added.delete('');
    // (a snapshot that changed nothing adds only its commit: not counted, so the tool call waits for no git process more)
    if (prev === undefined) line.bytes = Math.max(0, (await store.sizeBytes()) - sizeBefore);
    else line.bytes = added.size ? await store.objectBytes([snap.commit, snap.tree, ...added]) : 0;
    await store.keep(this.o.sessionId, refName(line), snap.commit);
    store.append(this.o.sessionId, line);
    this.latestTree = snap.tree;
    this.latestAt = line.at;
    this.source.settle(snap.tree);
    this.log(
      `checkpoint ${kind} ${entries[0] ?? '(baseline)'}: ${snap.ms.toFixed(1)} ms${snap.skipped.length ? `, ${snap.skipped.length} skipped` : ''}`,
    );
    return line;
  }

  private async changedPaths(store: CheckpointStore, a: string, b: string): Promise<string[]> {
    return (await store.diffTrees(a, b)).map((c) => c.path);
  }

  /**
   * Notes the content of an outside file an edit/write names, before its first call this turn. A path
   * inside the folder that leads outside it through a link (a linked file or folder) is named as not
   * captured: the snapshot holds the link, not what the call wrote.
   */
  private noteExternal(input: unknown): void {
    const p =
      (input as { path?: unknown; file_path?: unknown } | undefined)?.path ??
      (input as { file_path?: unknown } | undefined)?.file_path;
    if (typeof p !== 'string' || !this.turn) return;
    const abs = resolveToolPath(p, this.o.cwd);
    const rel = relative(this.o.cwd, abs);
    if (rel && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel)) {
      const path = rel.split(sep).join('/');
      if (!this.turn.notes.has(path) && leadsOutside(abs, this.o.cwd))
        this.turn.notes.set(path, { path, why: 'link-outside' });
      return; // inside: the snapshot has it
    }
    if (this.turn.external.has(abs)) return;
    this.turn.external.set(abs, readSide(abs, this.o.settings.maxFileBytes));
  }

  /**
   * Capture stays off in this folder (home, root, pi's own folder, too large): one message in pi, and
   * (`record`: the store's folder has its reason, none made for it) a line pi-tree shows.
   */
  private block(reason: string, record: boolean): void {
    this.offReason = `checkpoints are off in this folder: ${reason}`;
    this.log(this.offReason);
    if (record) {
      try {
        writeOffLine(this.o.agentDir, this.o.cwd, this.o.sessionId, reason);
      } catch (e) {
        this.log(`checkpoints: the reason could not be recorded: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    try {
      this.o.notify(`pi-tree: ${this.offReason}. pi goes on as usual.`);
    } catch {
      // pi's UI is gone
    }
  }

  /** The tree of another session's line newer than this session's latest, if one moved the folder since. */
  private movedTo(store: CheckpointStore): string | undefined {
    if (this.latestAt === undefined) return undefined;
    const other = othersNewest(store.where.sessionsDir, this.o.sessionId);
    return other && Date.parse(other.at) > Date.parse(this.latestAt) ? other.tree : undefined;
  }

  private async externalsAfter(store: CheckpointStore, turn: Turn): Promise<ExternalFile[]> {
    const out: ExternalFile[] = [];
    for (const [abs, before] of turn.external) {
      const now = readSide(abs, this.o.settings.maxFileBytes);
      const [bsha] = before.bytes ? await store.writeBlobs([before.bytes]) : [null];
      const [asha] = now.bytes ? await store.writeBlobs([now.bytes]) : [null];
      out.push({ path: abs, sha: asha, mode: now.mode, before: { sha: bsha, mode: before.mode } });
    }
    return out;
  }

  private turnOff(e: unknown): void {
    if (this.offReason) return;
    const why = e instanceof Error ? e.message : String(e);
    this.offReason = `checkpoints are off for this session: ${why}`;
    this.source.stop();
    this.log(this.offReason);
    void this.openStore()
      .then((s) => s.append(this.o.sessionId, { v: 1, kind: 'off', at: new Date().toISOString(), reason: why }))
      .catch(() => undefined);
    try {
      this.o.notify(`pi-tree: ${this.offReason}. pi goes on as usual.`);
    } catch {
      // pi's UI is gone: the manifest line says it
    }
  }
}

function skippedOf(snap: SnapshotResult, notes: readonly SkippedFile[]): Partial<SnapshotLine> {
  const all = [...notes, ...snap.skipped];
  if (!all.length) return {};
  return { skipped: { count: all.length, files: all.slice(0, SKIPPED_KEPT) } };
}
