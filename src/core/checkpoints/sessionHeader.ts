// The header line of a session file, read with a bound (the first 64 KiB): enough to follow a fork's
// `parentSession` to the session whose checkpoints it shares, and no more (a crafted path may name any
// file; only a regular file is read, and only its first line).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const MAX_HEADER_BYTES = 64 * 1024;

export interface HeaderFacts {
  id?: string;
  cwd?: string;
  parentSession?: string;
}

export function readLineHeader(file: string): HeaderFacts | undefined {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO named like a session must not hang the open (it is refused just below)
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(MAX_HEADER_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const nl = buf.subarray(0, n).indexOf(0x0a);
    const v = JSON.parse(buf.subarray(0, nl < 0 ? n : nl).toString('utf8')) as Record<string, unknown>;
    if (v?.type !== 'session') return undefined;
    const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
    return { id: str(v.id), cwd: str(v.cwd), parentSession: str(v.parentSession) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
