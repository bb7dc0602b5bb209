// pi-tree's private checkpoint store for one project (ARCHITECTURE.md, Checkpoints): a bare git repository of its
// own, a private index per session, and a manifest per session saying which entry has which snapshot.
// A snapshot is a commit of the working folder as git sees it through pi-tree's index: the project's
// .gitignore honoured, pi-tree's default excludes and size limit applied, nested repositories and
// special files left out (and named), pi's own folders inside the working folder left out
// (storeScope.ts). The project's own .git is never read or written. A collect prunes only what no
// snapshot in flight and no index can name (storeGc.ts).
import { excludeLines, privatePrefixes } from './storeScope.js';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { git, gitAtLeast, GitError } from '../git/gitRun.js';
import { lines, readBatch, readCountObjects, readId, sumNumbers, zList, zNames } from '../git/gitOutput.js';
import { commitText, looseObjectPath, writeLooseObject, writeLooseRef } from '../git/looseObjects.js';
import { readManifest, type ManifestLine, type SkippedFile } from './manifestLines.js';
import { ensurePrivateDir } from '../../platform/privateDir.js';
import { projectStore, safeSessionId, type CheckpointSettings, type ProjectStore } from './storePaths.js';
import { diffTrees, listTree, lookupPaths, type GitReader, type TreeChange, type TreeFile } from './treeReads.js';
import { copyIndex, lstatOrUndefined, sizeOf, stampOf, writeIfChanged } from './storeFiles.js';
import { sortListed, specialsAmong } from './indexPaths.js';
import { collectGarbage, collectRunning, inFlight, PRUNE_GRACE_MS } from './storeGc.js';

export interface SnapshotResult {
  commit: string;
  tree: string;
  skipped: SkippedFile[];
  /** Private permission bits of the files it looked at (manifestLines.ts `modes`). */
  modes?: Record<string, number>;
  ms: number;
}

interface TreeResult {
  tree: string;
  skipped: SkippedFile[];
  modes: Record<string, number>;
}

const SKIPPED_KEPT = 50;

/**
 * From this many files to hash on, a snapshot writes their blobs into packs (git's bulk check-in,
 * `core.bigFileThreshold=1` for that update-index) instead of a loose object file each: a project's
 * baseline is a few files of compressed blobs, not 100,000 files of a disk block or more each. Compressed
 * as loose objects are (level 1); a pack per 10,000 files, as bulk check-in looks for each new object in
 * a list of those it wrote. update-index checks in a batch like that from git 2.37 on; before, each blob
 * would be a pack of its own.
 */
const BULK_FILES = 256;
const BULK_CHUNK = 10_000;
const BULK_SINCE = [2, 37];

export interface StoreOptions {
  /** The git program (default `git` on PATH). */
  program?: string;
  env?: NodeJS.ProcessEnv;
  /** Folders of the agent's own besides pi's agent dir (pi's session folder, the bridge's records). */
  privateDirs?: readonly string[];
  /** Unreachable objects younger than this are kept by a collect (default a minute; storeGc.ts). */
  pruneGraceMs?: number;
  /** How long a collect waits for the snapshots that started before it (default 30 s; storeGc.ts). */
  pruneWaitMs?: number;
}

export class CheckpointStore {
  /** The folders under the working folder that are the agent's own (storeScope.ts): never captured. */
  readonly privatePrefixes: string[];

  private constructor(
    readonly where: ProjectStore,
    readonly settings: CheckpointSettings,
    private readonly opts: StoreOptions,
    agentDir: string,
  ) {
    this.privatePrefixes = privatePrefixes(agentDir, where.cwd, opts.privateDirs);
  }

  /** The store of `cwd`'s project under `agentDir`, made if missing (0700). */
  static async open(
    agentDir: string,
    cwd: string,
    settings: CheckpointSettings,
    opts: StoreOptions = {},
  ): Promise<CheckpointStore> {
    const s = new CheckpointStore(projectStore(agentDir, cwd), settings, opts, agentDir);
    await s.ensure();
    return s;
  }

  /** The store if it exists (reading never creates one). */
  static existing(
    agentDir: string,
    cwd: string,
    settings: CheckpointSettings,
    opts: StoreOptions = {},
  ): CheckpointStore | undefined {
    const where = projectStore(agentDir, cwd);
    return existsSync(join(where.gitDir, 'HEAD')) ? new CheckpointStore(where, settings, opts, agentDir) : undefined;
  }

  get cwd(): string {
    return this.where.cwd;
  }

  /** git in the store (and, with `index`, over the working folder through that private index). */
  run(
    args: readonly string[],
    o: { index?: string; input?: Buffer | string; okCodes?: number[]; literal?: boolean } = {},
  ): Promise<Buffer> {
    return git(args, {
      gitDir: this.where.gitDir,
      ...(o.index ? { workTree: this.where.cwd, indexFile: o.index } : {}),
      input: o.input,
      okCodes: o.okCodes,
      literalPathspecs: o.literal,
      program: this.opts.program,
      env: this.opts.env,
    });
  }

  private async ensure(): Promise<void> {
    const w = this.where;
    for (const d of [w.root, w.indexDir, w.sessionsDir, w.restoresDir]) ensurePrivateDir(d);
    if (!existsSync(join(w.gitDir, 'HEAD'))) {
      // A fresh name, then a rename: two pis starting at once never see a half-made store.
      const tmp = `${w.gitDir}.${process.pid}.${Date.now().toString(36)}.tmp`;
      await git(['init', '--bare', '--quiet', '--template=', tmp], {
        gitDir: tmp,
        program: this.opts.program,
        env: this.opts.env,
      });
      appendFileSync(
        join(tmp, 'config'),
        // no conversion of any kind (bytes in = bytes out), no auto gc (pi-tree prunes), stat caches on
        '[core]\n\tautocrlf = false\n\tsafecrlf = false\n\tsymlinks = true\n\tfilemode = true\n\tfsmonitor = false\n\tuntrackedCache = true\n\tquotePath = false\n\tprecomposeUnicode = false\n[gc]\n\tauto = 0\n[index]\n\tversion = 4\n',
      );
      try {
        renameSync(tmp, w.gitDir);
      } catch (e) {
        rmSync(tmp, { recursive: true, force: true });
        if (!existsSync(join(w.gitDir, 'HEAD'))) throw e;
      }
    }
    ensurePrivateDir(join(w.gitDir, 'info'));
    // info/attributes outranks the project's .gitattributes: no filter, no eol or encoding conversion.
    writeIfChanged(join(w.gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n');
    // The agent's own folders inside the working folder: out of git's walk (and dropPrivate takes them
    // out of an index seeded before).
    writeIfChanged(
      join(w.gitDir, 'info', 'exclude'),
      `${[...this.settings.exclude, ...excludeLines(this.privatePrefixes)].join('\n')}\n`,
    );
  }

  indexFile(sessionId: string): string {
    return join(this.where.indexDir, safeSessionId(sessionId));
  }

  /**
   * The session's index file. A session's first snapshot starts from the project's most recent index
   * (its stat cache, copied), so only the files changed since are hashed again.
   */
  private sessionIndex(sessionId: string): string {
    const file = this.indexFile(sessionId);
    if (existsSync(file)) return file;
    let best: { path: string; t: number } | undefined;
    for (const n of readdirSync(this.where.indexDir)) {
      if (n.includes('.')) continue; // locks, scratch copies
      const p = join(this.where.indexDir, n);
      const t = statSync(p).mtimeMs;
      if (!best || t > best.t) best = { path: p, t };
    }
    if (best) copyIndex(best.path, file);
    return file;
  }

  /** Snapshots the working folder now through the session's index (`only`: see writeTree). */
  async snapshot(sessionId: string, message: string, only?: readonly string[]): Promise<SnapshotResult> {
    return this.inFlight(async () => {
      const started = performance.now();
      const index = this.sessionIndex(sessionId);
      const { tree, skipped, modes } = await this.writeTree(index, only);
      const commit = writeLooseObject(this.where.gitDir, 'commit', Buffer.from(commitText(tree, message, new Date())));
      return {
        commit,
        tree,
        skipped,
        ...(Object.keys(modes).length ? { modes } : {}),
        ms: performance.now() - started,
      };
    });
  }

  /** Runs `op` marked as a snapshot in flight: a collect meanwhile keeps what it writes (storeGc.ts). */
  inFlight<T>(op: () => Promise<T>): Promise<T> {
    return inFlight(this.where.root, op);
  }

  /** The folder's tree now, through a copy of the session's index (which stays as it was). */
  async scratchSnapshot(sessionId: string): Promise<{ tree: string; skipped: SkippedFile[] }> {
    const index = this.sessionIndex(sessionId);
    const scratch = join(this.where.indexDir, `.scratch-${process.pid}-${Date.now().toString(36)}`);
    try {
      if (existsSync(index)) copyIndex(index, scratch);
      return await this.inFlight(() => this.writeTree(scratch));
    } finally {
      rmSync(scratch, { force: true });
      this.lastTrees.delete(scratch);
      this.clean.delete(scratch);
    }
  }

  /** The tree each index file gave last, with the file's stat then (any other write changes it). */
  private readonly lastTrees = new Map<string, { tree: string; stamp: string }>();

  /**
   * The folder's tree through `index`. `only`: the paths that may have changed since the index was last
   * updated (a folder watcher's list; folders stand for everything under them): git looks at those
   * alone instead of walking the whole folder. An index that names an object the store lost (a collect
   * of an older pi-tree, a disk error) is made again from a whole walk instead of failing for good.
   */
  private async writeTree(index: string, only?: readonly string[], rebuilt = false): Promise<TreeResult> {
    await this.dropPrivate(index);
    // A collect running: every object is written so that git freshens the one already there (its bulk
    // check-in does not), so that the collect keeps it (storeGc.ts).
    const careful = collectRunning(this.where.root);
    const limit = only ? ['--', ...only] : [];
    // Two walks at once: the tracked files against their stats (changed, deleted; diff-files stats them
    // on several threads, ls-files -m on one) and the folders read for new files.
    const [tracked, untracked] =
      only && !only.length
        ? [Buffer.alloc(0), Buffer.alloc(0)]
        : await Promise.all([
            this.run(['diff-files', '--name-only', '-z', ...limit], { index }),
            this.run(['ls-files', '-z', '--others', '--exclude-standard', ...limit], { index }),
          ]);
    const t = zNames(tracked);
    const u = zNames(untracked);
    const listed = [
      ...t.names.map((path) => ({ path, tracked: true })),
      ...u.names.map((path) => ({ path, tracked: false })),
    ];
    const { update, drop, skipped, modes } = sortListed(this.where.cwd, listed, {
      maxFileBytes: this.settings.maxFileBytes,
      prefixes: this.privatePrefixes,
    });
    for (const path of [...t.invalid, ...u.invalid]) skipped.push({ path, why: 'name-not-utf8' });
    if (only) skipped.push(...specialsAmong(this.where.cwd, only, new Set(listed.map((l) => l.path))));
    // Dropped first: a folder that is a link now leaves the index before the link comes in.
    if (drop.length)
      await this.run(['update-index', '-z', '--force-remove', '--stdin'], { index, input: drop.join('\0') + '\0' });
    if (
      update.length >= BULK_FILES &&
      !careful &&
      (await gitAtLeast(BULK_SINCE, (args) => this.run(args), this.opts.program))
    ) {
      for (let i = 0; i < update.length; i += BULK_CHUNK) {
        const chunk = update.slice(i, i + BULK_CHUNK);
        await this.run(
          [
            '-c',
            'core.bigFileThreshold=1',
            '-c',
            'pack.compression=1',
            'update-index',
            '-z',
            '--add',
            '--remove',
            '--stdin',
          ],
          { index, input: chunk.join('\0') + '\0' },
        );
      }
    } else if (update.length)
      await this.run(['update-index', '-z', '--add', '--remove', '--stdin'], {
        index,
        input: update.join('\0') + '\0',
      });
    // Nothing to update and the index as the last write-tree left it: the tree is that one (the 'before'
    // snapshot of a turn after a turn, mostly; a process fewer for the tool call to wait on).
    const known = this.lastTrees.get(index);
    if (!update.length && !drop.length && known && known.stamp === stampOf(index))
      return { tree: known.tree, skipped, modes };
    let tree: string;
    try {
      tree = readId(await this.run(['write-tree'], { index }));
    } catch (e) {
      if (
        rebuilt ||
        !(e instanceof GitError) ||
        !/invalid object|missing|unable to read|bad object|is corrupt/i.test(`${e.message}\n${e.stderr}`)
      )
        throw e;
      rmSync(index, { force: true });
      this.lastTrees.delete(index);
      return this.writeTree(index, undefined, true);
    }
    this.lastTrees.set(index, { tree, stamp: stampOf(index) });
    return { tree, skipped, modes };
  }

  /** Indexes rid of the agent's own folders in this process (a seeded index may hold them from before). */
  private readonly clean = new Set<string>();

  /** Takes what an index holds under the agent's own folders out of it (once per index and process). */
  private async dropPrivate(index: string): Promise<void> {
    if (this.clean.has(index) || !this.privatePrefixes.length) return;
    if (existsSync(index)) {
      const held = zNames(await this.run(['ls-files', '-z', '--', ...this.privatePrefixes], { index }));
      const all = [...held.names, ...held.invalid];
      if (all.length)
        await this.run(['update-index', '-z', '--force-remove', '--stdin'], { index, input: all.join('\0') + '\0' });
    }
    this.clean.add(index);
  }

  /** The folder's tree now through the session's index (which it updates), without a commit (`only`: see writeTree). */
  async treeNow(sessionId: string, only?: readonly string[]): Promise<string> {
    const index = this.sessionIndex(sessionId);
    return (await this.inFlight(() => this.writeTree(index, only))).tree;
  }

  /** Keeps `commit` reachable under the session (so pruning and gc keep it until the session lets go). */
  async keep(sessionId: string, name: string, commitOrTree: string): Promise<void> {
    const ref = `refs/pi-tree/${safeSessionId(sessionId)}/${name}`;
    if (!writeLooseRef(this.where.gitDir, ref, commitOrTree)) await this.run(['update-ref', ref, commitOrTree]);
  }

  /** Writes blobs (exact bytes, no filters) and gives their ids, in order. */
  async writeBlobs(contents: readonly Buffer[]): Promise<string[]> {
    const out: string[] = [];
    for (const c of contents)
      out.push(readId(await this.run(['hash-object', '-w', '--no-filters', '--stdin'], { input: c })));
    return out;
  }

  /** The bytes of blobs, by id (one `cat-file --batch` for all). */
  async readBlobs(shas: readonly string[]): Promise<Map<string, Buffer>> {
    const want = [...new Set(shas)];
    const map = new Map<string, Buffer>();
    if (!want.length) return map;
    const objects = readBatch(await this.run(['cat-file', '--batch'], { input: want.join('\n') + '\n' }), want.length);
    want.forEach((sha, i) => {
      const o = objects[i];
      if ('missing' in o) throw new GitError(`checkpoint object ${sha} is missing from the store`, 'failed');
      map.set(sha, o.body);
    });
    return map;
  }

  /** Paths that differ between two trees (treeReads.ts). */
  diffTrees(a: string, b: string, o: { trees?: boolean } = {}): Promise<TreeChange[]> {
    return diffTrees(this.reader, a, b, o);
  }

  /** Mode and blob of `paths` in `tree`, absent ones left out (treeReads.ts). */
  lookup(tree: string, paths: readonly string[]): Promise<Map<string, TreeFile>> {
    return lookupPaths(this.reader, tree, paths);
  }

  /** Every file of a tree (path → mode and blob). */
  listTree(tree: string): Promise<Map<string, TreeFile>> {
    return listTree(this.reader, tree);
  }

  private readonly reader: GitReader = (args, input) => this.run(args, input === undefined ? {} : { input });

  /**
   * Which of `paths` the project's .gitignore or pi-tree's excludes leave out. A path under a folder
   * that is a symbolic link now is not asked about (git refuses the whole question: "beyond a symbolic
   * link"); it is not ignored, and a restore refuses it for the link.
   */
  async ignored(paths: readonly string[]): Promise<string[]> {
    const links = new Map<string, boolean>();
    const asked = paths.filter((p) => !underLink(this.where.cwd, p, links));
    if (!asked.length) return [];
    const out = await this.run(['check-ignore', '-z', '--no-index', '--stdin'], {
      index: join(this.where.indexDir, '.none'),
      input: asked.join('\0') + '\0',
      okCodes: [1],
      literal: false,
    });
    return zList(out);
  }

  /**
   * The ignored folders git would not look into (through the session's index: a folder that holds a
   * tracked file is not one), relative, without the trailing slash.
   */
  async ignoredFolders(sessionId: string): Promise<string[]> {
    const index = this.sessionIndex(sessionId);
    const out = await this.run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], {
      index,
    });
    return zList(out).flatMap((p) => (p.endsWith('/') ? [p.slice(0, -1)] : []));
  }

  /** True when the file at `path` (relative) is now larger than the size limit. */
  tooLargeNow(path: string): boolean {
    try {
      const st = lstatSync(join(this.where.cwd, path));
      return st.isFile() && st.size > this.settings.maxFileBytes;
    } catch {
      return false;
    }
  }

  manifestFile(sessionId: string): string {
    return join(this.where.sessionsDir, `${safeSessionId(sessionId)}.jsonl`);
  }

  append(sessionId: string, line: ManifestLine): void {
    appendFileSync(this.manifestFile(sessionId), `${JSON.stringify(line)}\n`, { mode: 0o600 });
  }

  /** A session's manifest lines, in order (torn or foreign lines skipped). */
  manifest(sessionId: string): ManifestLine[] {
    return readManifest(this.manifestFile(sessionId));
  }

  /** The bytes objects take in the store (compressed, as stored), by id; missing ones count 0. */
  async objectBytes(shas: readonly string[]): Promise<number> {
    // A snapshot's new objects are loose: their files' sizes, without a git process; the rest (packed)
    // through cat-file.
    let sum = 0;
    const packed: string[] = [];
    for (const sha of shas) {
      const file = looseObjectPath(this.where.gitDir, sha);
      const size = file ? sizeOf(file) : undefined;
      if (size === undefined) packed.push(sha);
      else sum += size;
    }
    if (!packed.length) return sum;
    return (
      sum +
      sumNumbers(await this.run(['cat-file', '--batch-check=%(objectsize:disk)'], { input: packed.join('\n') + '\n' }))
    );
  }

  /**
   * Packs the loose objects into one pack (deltas among them), as git's own gc would. Incremental: the
   * packs already there are left as they are (\`collect\` repacks all).
   */
  async packLoose(): Promise<void> {
    await this.run(['repack', '-d', '-l', '-q', '--no-write-bitmap-index']);
  }

  /** The store's size on disk (objects), in bytes. */
  async sizeBytes(): Promise<number> {
    return readCountObjects(await this.run(['count-objects', '-v']));
  }

  /**
   * Lets this store read `other`'s objects (git's alternates): a folder checked out from `other`'s
   * snapshot then needs none of them copied. `other` keeps them with a ref of its own (dropRefs frees it).
   */
  borrowObjects(other: CheckpointStore): void {
    const info = join(this.where.gitDir, 'objects', 'info');
    ensurePrivateDir(info);
    writeIfChanged(join(info, 'alternates'), `${join(other.where.gitDir, 'objects')}\n`);
  }

  /** Drops the refs a session keeps here (what they kept goes at the next collect). */
  async dropRefs(sessionId: string): Promise<void> {
    const refs = lines(
      await this.run(['for-each-ref', '--format=%(refname)', `refs/pi-tree/${safeSessionId(sessionId)}/`]),
    );
    if (refs.length) await this.run(['update-ref', '--stdin'], { input: refs.map((r) => `delete ${r}\n`).join('') });
  }

  /** Deletes a session's checkpoints (manifest, index, refs) and collects what nothing else keeps. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.dropRefs(sessionId);
    rmSync(this.manifestFile(sessionId), { force: true });
    rmSync(this.indexFile(sessionId), { force: true });
    await this.collect();
  }

  /**
   * Drops the unreachable objects (snapshots no ref keeps) that no snapshot in flight and no index can
   * name, older than the grace (storeGc.ts). False when a snapshot of another pi kept it from pruning.
   */
  /** How old an unreachable object must be before a collect drops it (a snapshot in flight may still name it). */
  get pruneGraceMs(): number {
    return this.opts.pruneGraceMs ?? PRUNE_GRACE_MS;
  }

  async collect(o: { log?: (m: string) => void } = {}): Promise<boolean> {
    const r = await collectGarbage({
      root: this.where.root,
      indexDir: this.where.indexDir,
      run: (args, x) => this.run(args, x ?? {}),
      graceMs: this.opts.pruneGraceMs,
      waitMs: this.opts.pruneWaitMs,
      log: o.log,
    });
    return r.pruned;
  }

  /**
   * Rewrites a session's manifest with only `keep` lines (atomic: temp + rename). With `read` (the
   * manifest's size when its lines were read), nothing is written if it has grown since (a pi appended a
   * line meanwhile, which the rename would lose): false then.
   */
  rewriteManifest(sessionId: string, keep: readonly ManifestLine[], read?: { size: number }): boolean {
    const file = this.manifestFile(sessionId);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, keep.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 });
    if (read && sizeOf(file) !== read.size) {
      rmSync(tmp, { force: true });
      return false;
    }
    renameSync(tmp, file);
    return true;
  }
}

export { SKIPPED_KEPT };

/** Whether a folder above `rel` is a symbolic link now. `memo` keeps each folder's answer. */
function underLink(cwd: string, rel: string, memo: Map<string, boolean>): boolean {
  for (let i = rel.indexOf('/'); i > 0; i = rel.indexOf('/', i + 1)) {
    const dir = rel.slice(0, i);
    let link = memo.get(dir);
    if (link === undefined) {
      link = !!lstatOrUndefined(join(cwd, dir))?.isSymbolicLink();
      memo.set(dir, link);
    }
    if (link) return true;
  }
  return false;
}
