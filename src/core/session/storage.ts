// Where a session's bytes live. `JsonlStorage` is a real file (appends of whole lines, atomic rewrites
// with a backup); `MemoryStorage` keeps the same bytes in a Buffer for tests. Both are read through the
// same ByteSource, so they share every line of parsing code.
import { constants } from 'node:fs';
import { copyFile, link, lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { withFileLock, type LockOptions } from './fileLock.js';
import { BufferSource, FileSource, openRegular, type ByteSource } from '../index/byteSource.js';
import { writeStep } from './writeSteps.js';
import { nodeCrypto } from '../platform/lazyNode.js';

export interface SessionStorage {
  /** Absolute path of the file, or undefined for in-memory storage. */
  readonly path: string | undefined;
  openSource(): Promise<ByteSource>;
  /**
   * Appends whole lines; writes a "\n" first when the file does not end with one. `expectedSize`: the
   * size the caller read the file at; a file of another size throws FileChangedError, unwritten.
   */
  append(text: string, expectedSize?: number): Promise<void>;
  /** Atomically replaces the content, keeping the old content beside it; returns the backup's name. */
  replace(text: string, backupSuffix: string): Promise<string>;
  /** Runs `fn` while holding the pi-tree write lock of this file (other pi-tree processes wait). */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

/** The file is not the size its reader saw (another writer appended): nothing was written. */
export class FileChangedError extends Error {
  override name = 'FileChangedError';
}

export class JsonlStorage implements SessionStorage {
  constructor(
    readonly path: string,
    private readonly lockOptions: LockOptions = {},
  ) {}

  openSource(): Promise<ByteSource> {
    return FileSource.open(this.path);
  }

  async append(text: string, expectedSize?: number): Promise<void> {
    // O_APPEND without O_CREAT: a session that vanished is an error, not a new file.
    const fh = await openRegular(this.path, constants.O_WRONLY | constants.O_APPEND);
    try {
      const { size } = await fh.stat();
      // (pi takes no lock: what it appends from here to the write below still lands whole, after ours)
      if (expectedSize !== undefined && size !== expectedSize)
        throw new FileChangedError(`The file is ${size} bytes, not the ${expectedSize} read.`);
      let prefix = '';
      if (size > 0) {
        const rd = await openRegular(this.path, constants.O_RDONLY);
        try {
          const b = Buffer.alloc(1);
          await rd.read(b, 0, 1, size - 1);
          if (b[0] !== 0x0a) prefix = '\n';
        } finally {
          await rd.close();
        }
      }
      // One write call: on a local file system O_APPEND writes do not interleave with other appenders.
      const data = Buffer.from(prefix + text, 'utf8');
      let off = 0;
      try {
        while (off < data.length) {
          const { bytesWritten } = await fh.write(data, off, data.length - off);
          off += bytesWritten;
        }
        await fh.datasync();
      } catch (e) {
        // Disk full or I/O error part-way: take our partial bytes back so no torn line is left,
        // unless another writer appended after them (then truncating would cut their data).
        if (off > 0 && (await fh.stat()).size === size + off) await fh.truncate(size).catch(() => {});
        throw e;
      }
    } finally {
      await fh.close();
    }
  }

  async replace(text: string, backupSuffix: string): Promise<string> {
    // A session reached through a symlink: rewrite the file the link points to, so the link stays a
    // link and the two never drift apart; the backup sits beside that file. Its mode is kept.
    const real = await realpath(this.path);
    const { mode } = await stat(real);
    const backup = await freeName(`${real}${backupSuffix}`);
    await writeFileAtomic(real, text, { backup, mode: mode & 0o7777 });
    return backup;
  }

  /**
   * The advisory lock beside the session's real file (`<file>.pi-tree.lock`, which pi never lists; a
   * symlink and its target share one), so two pi-tree windows never both append under the same leaf.
   */
  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    const real = await realpath(this.path).catch(() => this.path);
    return withFileLock(`${real}.pi-tree.lock`, fn, this.lockOptions);
  }
}

export class MemoryStorage implements SessionStorage {
  readonly path = undefined;
  data: Buffer;
  readonly backups: Buffer[] = [];
  /** Set to make the next append fail (tests of failure paths). */
  failNextAppend: Error | undefined;

  constructor(initial: string | Buffer = '') {
    this.data = Buffer.isBuffer(initial) ? initial : Buffer.from(initial, 'utf8');
  }

  async openSource(): Promise<ByteSource> {
    return new BufferSource(() => this.data);
  }

  async append(text: string, expectedSize?: number): Promise<void> {
    if (expectedSize !== undefined && this.data.length !== expectedSize)
      throw new FileChangedError(`${this.data.length} bytes, not ${expectedSize}`);
    if (this.failNextAppend) {
      const e = this.failNextAppend;
      this.failNextAppend = undefined;
      throw e;
    }
    const prefix = this.data.length && this.data[this.data.length - 1] !== 0x0a ? '\n' : '';
    this.data = Buffer.concat([this.data, Buffer.from(prefix + text, 'utf8')]);
  }

  async replace(text: string): Promise<string> {
    this.backups.push(this.data);
    this.data = Buffer.from(text, 'utf8');
    return `backup-${this.backups.length}`;
  }

  text(): string {
    return this.data.toString('utf8');
  }

  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}

/** `base`, or `base.1`, `base.2`, … whichever does not exist yet. */
export async function freeName(base: string): Promise<string> {
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? base : `${base}.${i}`;
    try {
      await lstat(candidate); // lstat, not open: a FIFO of that name must not block us
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return candidate;
      throw e;
    }
  }
}

export interface AtomicWriteOptions {
  /** Keep the current file under this name (a hard link, so it costs nothing and survives the rename). */
  backup?: string;
  /** Fail instead of replacing an existing file. */
  exclusive?: boolean;
  /** Permission bits of the new file (default 0600), set exactly (not masked by the umask). */
  mode?: number;
}

/**
 * Writes `content` (a string, or a producer that writes it in chunks) to a temp file in the same
 * directory, fsyncs it, then renames it into place (or links
 * it, when `exclusive`). A crash leaves either the old file or the new one whole; never a mix. The temp
 * name does not end in `.jsonl`, so pi never lists a half-written file as a session.
 */
export async function writeFileAtomic(
  target: string,
  content: string | ((write: (chunk: string) => Promise<void>) => Promise<void>),
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(target);
  const tmp = join(dir, `.${basename(target)}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    if (opts.mode !== undefined) await fh.chmod(opts.mode);
    if (typeof content === 'string') await fh.writeFile(content, 'utf8');
    else {
      // Written as it is produced (a clone of a huge session is never whole in memory).
      await content(async (chunk) => {
        const b = Buffer.from(chunk, 'utf8');
        for (let off = 0; off < b.length;) off += (await fh.write(b, off, b.length - off)).bytesWritten;
      });
    }
    writeStep('temp-written', target);
    await fh.sync();
    writeStep('temp-synced', target);
  } catch (e) {
    await fh.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await fh.close();
  try {
    if (opts.backup) {
      try {
        await link(target, opts.backup);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw e;
        await copyFile(target, opts.backup, constants.COPYFILE_EXCL);
      }
      writeStep('backup-made', target);
    }
    if (opts.exclusive) {
      await link(tmp, target); // EEXIST if someone got there first: never clobber a file
      await unlink(tmp);
    } else {
      await rename(tmp, target);
    }
    writeStep('in-place', target);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await syncDir(dir);
  writeStep('dir-synced', target);
}

async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Some platforms (Windows) cannot fsync a directory; the rename is still atomic.
  }
}
