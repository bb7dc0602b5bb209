// Every git output pi-tree reads, parsed here and nowhere else (git's formats, as git-scm documents them
// and test/core/checkpoints/git/gitOutput.test.ts checks on output captured from git): NUL and line
// lists, object ids of SHA-1 (40 hex) or SHA-256 (64 hex) repositories, `cat-file --batch` and
// `--batch-check`, tree objects, `ls-tree -z` (and `-l`), `diff-tree -z` (raw), `count-objects -v`, `git version`.

import { isUtf8 } from 'node:buffer';

/** An object id: 40 hex digits (SHA-1) or 64 (SHA-256). */
export const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
export const isObjectId = (s: string): boolean => OBJECT_ID.test(s);

/** The one object id a command prints (`write-tree`, `hash-object`); anything else is git misbehaving. */
export function readId(out: Buffer): string {
  const id = out.toString('latin1').trim();
  if (!isObjectId(id)) throw new Error(`git printed ${JSON.stringify(id.slice(0, 80))} where an object id belongs`);
  return id;
}

/** The conflicts `merge-file -p` left marked in its output (its exit code says the same, capped at 127). */
export function countConflicts(out: Buffer, oursLabel: string): number {
  const start = Buffer.from(`<<<<<<< ${oursLabel}\n`);
  let n = 0;
  for (let at = out.indexOf(start); at >= 0; at = out.indexOf(start, at + start.length))
    if (at === 0 || out[at - 1] === 0x0a) n++;
  return n;
}

/** An id of zeros: "no object" on one side of a diff. */
const NULL_ID = /^0+$/;

/** NUL-separated output as strings (the last, empty piece dropped). */
export function zList(out: Buffer): string[] {
  const s = out.toString('utf8');
  const parts = s.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * NUL-separated path names, those that are not valid UTF-8 apart: such a name cannot be passed back to
 * git as text (decoding replaces its bytes), so it is left out and named.
 */
export function zNames(out: Buffer): { names: string[]; invalid: string[] } {
  const names: string[] = [];
  const invalid: string[] = [];
  for (let at = 0; at < out.length;) {
    let end = out.indexOf(0, at);
    if (end < 0) end = out.length;
    const part = out.subarray(at, end);
    if (isUtf8(part)) names.push(part.toString('utf8'));
    else invalid.push(part.toString('utf8'));
    at = end + 1;
  }
  return { names, invalid };
}

/** Newline-separated output, empty lines dropped. */
export function lines(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\n')
    .filter((s) => s.length > 0);
}

/** One answer of `cat-file --batch`: the object, or `missing` (a name that resolves to nothing). */
export type BatchObject = { id: string; type: string; body: Buffer } | { missing: true };

/**
 * `cat-file --batch` output for `count` requests, in order: "<id> <type> <size>\n<body>\n" per object,
 * "<name> missing\n" for a name that is not one.
 */
export function readBatch(out: Buffer, count: number): BatchObject[] {
  const objects: BatchObject[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const nl = out.indexOf(0x0a, at);
    if (nl < 0) throw new Error(`git cat-file --batch answered ${i} of ${count} objects`);
    const head = /^([0-9a-f]{40}|[0-9a-f]{64}) (\w+) (\d+)$/.exec(out.toString('latin1', at, nl));
    at = nl + 1;
    if (!head) {
      objects.push({ missing: true });
      continue;
    }
    const size = Number(head[3]);
    if (at + size > out.length) throw new Error(`git cat-file --batch cut ${head[1]} short`);
    objects.push({ id: head[1], type: head[2], body: out.subarray(at, at + size) });
    at += size + 1;
  }
  return objects;
}

/** `cat-file --batch-check` lines ("<id> <type> <size>", or "<name> missing"), in order. */
export function readBatchCheck(out: Buffer): ({ id: string; type: string; size: number } | { missing: true })[] {
  return lines(out).map((l) => {
    const m = /^([0-9a-f]{40}|[0-9a-f]{64}) (\w+) (\d+)$/.exec(l);
    return m ? { id: m[1], type: m[2], size: Number(m[3]) } : { missing: true };
  });
}

/** One entry of a tree object. */
export interface TreeEntry {
  /** git's octal mode as written in tree objects ('40000' for a folder, '100644', '100755', '120000'). */
  mode: string;
  name: string;
  sha: string;
}

/** The entries of a tree object's body: "<octal mode> <name>\0<id as bytes>" each (20 bytes, or 32 for SHA-256). */
export function parseTree(body: Buffer, idBytes = 20): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (let i = 0; i < body.length;) {
    const sp = body.indexOf(0x20, i);
    const nul = body.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 1 + idBytes > body.length) throw new Error('a tree object cut short');
    out.push({
      mode: body.toString('latin1', i, sp),
      name: body.toString('utf8', sp + 1, nul),
      sha: body.toString('hex', nul + 1, nul + 1 + idBytes),
    });
    i = nul + 1 + idBytes;
  }
  return out;
}

/** A tree object's body from its entries, sorted as git sorts them (a folder's name as if it ended in '/'). */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const key = (e: TreeEntry) => Buffer.from(e.mode === '40000' ? `${e.name}/` : e.name, 'utf8');
  const sorted = entries.map((e) => ({ e, k: key(e) })).sort((a, b) => Buffer.compare(a.k, b.k));
  return Buffer.concat(
    sorted.flatMap(({ e }) => [Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.sha, 'hex')]),
  );
}

/** A file of a tree: its mode (as a number) and blob. */
export interface TreeFile {
  mode: number;
  sha: string;
}

/** `ls-tree -z` records: "<mode> <type> <id>\t<path>". */
export function readLsTree(out: Buffer): { path: string; file: TreeFile; type: string }[] {
  return zList(out).map((rec) => {
    const tab = rec.indexOf('\t');
    const [mode, type, sha] = rec.slice(0, tab).split(' ');
    return { path: rec.slice(tab + 1), type, file: { mode: parseInt(mode, 8), sha } };
  });
}

/**
 * `ls-tree -r -l -z` records: "<mode> <type> <id> <size, padded with spaces>\t<path>" (the size is `-`
 * for a tree or a submodule), as raw bytes: a path that is not valid UTF-8 is kept apart in `invalid`.
 */
export function readLsTreeSized(out: Buffer): {
  files: { path: string; file: TreeFile; size: number }[];
  invalid: string[];
} {
  const files: { path: string; file: TreeFile; size: number }[] = [];
  const invalid: string[] = [];
  for (let at = 0; at < out.length;) {
    let end = out.indexOf(0, at);
    if (end < 0) end = out.length;
    const tab = out.indexOf(0x09, at);
    if (tab < 0 || tab > end) throw new Error('git ls-tree printed a record without a path');
    const [mode, type, sha, size] = out.toString('latin1', at, tab).split(/ +/);
    const name = out.subarray(tab + 1, end);
    if (!isUtf8(name)) invalid.push(name.toString('utf8'));
    else if (type === 'blob')
      files.push({ path: name.toString('utf8'), file: { mode: parseInt(mode, 8), sha }, size: Number(size) || 0 });
    at = end + 1;
  }
  return { files, invalid };
}

/** One path of `diff-tree -z` (raw): each side's mode and id, null where the path is absent. */
export interface TreeChange {
  path: string;
  a: TreeFile | null;
  b: TreeFile | null;
}

/** `diff-tree -r -z --no-renames` raw records: ":<mode a> <mode b> <id a> <id b> <status>\0<path>\0". */
export function readDiffTree(out: Buffer): TreeChange[] {
  const parts = zList(out);
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [ma, mb, sa, sb] = parts[i].slice(1).split(' ');
    changes.push({ path: parts[i + 1], a: side(ma, sa), b: side(mb, sb) });
  }
  return changes;
}

function side(mode: string, sha: string): TreeFile | null {
  return NULL_ID.test(sha) || /^0+$/.test(mode) ? null : { mode: parseInt(mode, 8), sha };
}

/** `count-objects -v`: the loose and packed objects' size on disk, in bytes. */
export function readCountObjects(out: Buffer): number {
  const text = out.toString('utf8');
  const kib = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return (kib('size') + kib('size-pack')) * 1024;
}

/** `git version`: [major, minor] ([] when it says no version). */
export function readVersion(out: Buffer): number[] {
  return (/(\d+)\.(\d+)/.exec(out.toString('utf8')) ?? []).slice(1).map(Number);
}

/** Output of one number a line (a `--batch-check` format such as `%(objectsize:disk)`), summed; other lines count 0. */
export function sumNumbers(out: Buffer): number {
  return lines(out).reduce((n, l) => n + (/^\d+$/.test(l) ? Number(l) : 0), 0);
}
