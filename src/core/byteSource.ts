// Random-access bytes of a session file: a real file, or a Buffer for the in-memory backend. The
// reader and the index only see this interface, so both backends run the same parsing code.
import { open, type FileHandle } from 'node:fs/promises';

export interface ByteSource {
  size(): Promise<number>;
  /** Reads up to `length` bytes at `position` into `buf[offset…]`; returns the count read. */
  read(buf: Buffer, offset: number, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

export class FileSource implements ByteSource {
  private constructor(private readonly fh: FileHandle) {}

  static async open(path: string): Promise<FileSource> {
    return new FileSource(await open(path, 'r'));
  }

  async size(): Promise<number> {
    return (await this.fh.stat()).size;
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
