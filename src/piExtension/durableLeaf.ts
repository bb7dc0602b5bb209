// pi 1.6.0 resumes a session at the LAST LINE of its file, and a plain /tree move (no summary, no
// label) writes nothing: a restarted pi would be back where the user left. After a move the bridge
// therefore appends pi-tree's leaf record (a `leaf` entry whose parentId is the target, so pi resumes there) under the new leaf:
//   {"type":"leaf","id","parentId":<target>,"timestamp","targetId":<target>,"fromId":<old leaf>}
// pi resumes at that record (its parent is the target, it adds nothing to the context) and pi-tree's
// reader takes its targetId. Nothing is written when the last line already resolves to the new leaf.
// Runs synchronously inside pi's event loop turn, so it cannot interleave with pi's own appends.
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { customAlphabet } from 'nanoid';

const CHUNK = 64 * 1024;
const HEAD = 4096;
/** An entry id in pi's shape (8 lowercase hex), as src/core/format/ids.ts makes them. */
const entryId = customAlphabet('0123456789abcdef', 8);

export interface LastLine {
  type?: string;
  id?: string;
  targetId?: string | null;
  /** The file ends with "\n" (no torn line). */
  whole: boolean;
}

/** The type, id and (for leaf records) targetId of the file's last line, read from its first bytes. */
export function readLastLine(fd: number): LastLine | undefined {
  const size = fstatSync(fd).size;
  if (size === 0) return undefined;
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, size - 1);
  const whole = one[0] === 0x0a;
  const end = whole ? size - 1 : size;
  // Walk back to the "\n" before the last line (a last line can be a multi-MB tool result).
  let start = 0;
  const buf = Buffer.alloc(CHUNK);
  for (let pos = end; pos > 0;) {
    const from = Math.max(0, pos - CHUNK);
    const n = readSync(fd, buf, 0, pos - from, from);
    const nl = buf.subarray(0, n).lastIndexOf(0x0a);
    if (nl >= 0) {
      start = from + nl + 1;
      break;
    }
    pos = from;
  }
  const head = Buffer.alloc(Math.min(HEAD, end - start));
  readSync(fd, head, 0, head.length, start);
  const text = head.toString('utf8');
  // pi writes keys in a fixed order: {"type":…,"id":…,"parentId":…,"timestamp":…,…}
  const m = /^\{"type":"([^"\\]{1,64})","id":"([^"\\]{1,128})"/.exec(text);
  if (!m) return { whole };
  const out: LastLine = { type: m[1], id: m[2], whole };
  if (m[1] === 'leaf') {
    const t = /"targetId":(null|"([^"\\]{1,128})")/.exec(text);
    if (t) out.targetId = t[1] === 'null' ? null : t[2];
  }
  return out;
}

export interface LeafRecord {
  type: 'leaf';
  id: string;
  parentId: string | null;
  timestamp: string;
  targetId: string | null;
  fromId: string | null;
}

/**
 * Appends the leaf record when the file's last line does not already resolve to `leafId`. `taken` says
 * whether an id is used (pi's entries and records written before). Returns the record, or undefined
 * when nothing was needed (or the file does not exist yet: pi creates it with the first message).
 */
export function persistLeaf(
  file: string,
  leafId: string | null,
  fromId: string | null,
  taken: (id: string) => boolean,
): LeafRecord | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const last = readLastLine(fd);
    if (!last) return undefined;
    if (last.id !== undefined && last.id === leafId) return undefined;
    if (last.type === 'leaf' && last.targetId === leafId && last.targetId !== undefined) return undefined;
    let id: string;
    do id = entryId();
    while (taken(id));
    const rec: LeafRecord = {
      type: 'leaf',
      id,
      parentId: leafId,
      timestamp: new Date().toISOString(),
      targetId: leafId,
      fromId,
    };
    // A torn last line (a crash mid-write) stays alone on its line, as pi-tree's writer does.
    const line = `${last.whole ? '' : '\n'}${JSON.stringify(rec)}\n`;
    // O_APPEND without O_CREAT: whole line at the end, and a vanished file is not re-created.
    const w = openSync(file, constants.O_WRONLY | constants.O_APPEND);
    try {
      writeSync(w, line);
    } finally {
      closeSync(w);
    }
    return rec;
  } finally {
    closeSync(fd);
  }
}
