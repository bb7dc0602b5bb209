// Random-access bytes of a session file: a real file, or a Buffer for the in-memory backend. The
// reader and the index only see this interface, so both backends run the same parsing code.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** A path that names a FIFO, socket, device or directory: opening it could block forever or read garbage. */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file; pi-tree reads only regular session files.`);
  }
}

/** What a non-regular file is, for messages. */
export function fileKind(s: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a directory';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Opens `path` for `flags` without ever blocking on it: O_NONBLOCK makes open() of a FIFO return at
 * once (a plain open waits for a writer, forever, and holds one of libuv's four pool threads while it
 * does), then fstat refuses anything that is not a regular file. O_NONBLOCK has no effect on reads and
 * writes of regular files.
 */
export async function openRegular(path: string, flags: number): Promise<FileHandle> {
  const fh = await open(path, flags | (constants.O_NONBLOCK ?? 0));
  try {
    const s = await fh.stat();
    if (!s.isFile()) throw new NotRegularFileError(path, fileKind(s));
  } catch (e) {
    await fh.close().catch(() => {});
    throw e;
  }
  return fh;
}

export interface ByteSource {
  size(): Promise<number>;
  /** Reads up to `length` bytes at `position` into `buf[offset…]`; returns the count read. */
  read(buf: Buffer, offset: number, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export class FileSource implements ByteSource {
  private constructor(private readonly fh: FileHandle) {}

  static async open(path: string): Promise<FileSource> {
    return new FileSource(await openRegular(path, constants.O_RDONLY));
  }

  async size(): Promise<number> {
    return (await this.fh.stat()).size;
  }

  stat(): Promise<import('node:fs').Stats> {
    return this.fh.stat();
  }

  async read(buf: Buffer, offset: number, length: number, position: number): Promise<number> {
    const { bytesRead } = await this.fh.read(buf, offset, length, position);
    return bytesRead;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

export class BufferSource implements ByteSource {
  constructor(private readonly data: () => Buffer) {}

  async size(): Promise<number> {
    return this.data().length;
  }

  async read(buf: Buffer, offset: number, length: number, position: number): Promise<number> {
    const d = this.data();
    if (position >= d.length) return 0;
    return d.copy(buf, offset, position, Math.min(d.length, position + length));
  }

  async close(): Promise<void> {}
}
