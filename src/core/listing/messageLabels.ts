// The user messages a fork can start from, as the fork pick lists them: each message's text on one line
// (its first 100 characters), its local time and its id, newest first. A session of a million entries
// has a hundred thousand of them: only the head of each message's text is read, from its line's bytes
// while the line is in the read buffer (lineReads.ts, which yields to the event loop between slices),
// and only the short label is kept. A line the bytes cannot tell about (not in pi's shape, an escaped
// key) is parsed whole, so a label is always what the entry parsed whole gives.
import { jsonAt, keyList, objectValues, plainValue, sameBytes, skipWs } from '../scan/jsonBytes.js';
import { messageStartOf } from '../scan/lineHead.js';
import { parseLineOf, StaleFileError } from '../index/lineReads.js';
import { skipValue } from '../scan/messageFacts.js';
import { fullText } from '../context/entryText.js';
import type { Session } from '../session/session.js';
import type { SessionIndex } from '../index/sessionIndex.js';
import { oneLine } from './sessionTitle.js';
import { messageOf, type SessionEntry } from '../format/types.js';
import { asText } from '../format/values.js';

export interface MessageLabel {
  id: string;
  /** The message's text on one line, at most LABEL_MAX characters. */
  label: string;
  /** When it was sent, in local time. */
  description: string;
}

/** Characters of a label (the last one an ellipsis when the text is longer). */
export const LABEL_MAX = 100;

/** The label of a user message entry parsed whole ('' when it has no text). */
export function entryLabel(e: SessionEntry): string {
  return oneLine(fullText(messageOf(e)?.content), LABEL_MAX);
}

/** Whether the session has a live user message (looked for from the end: the usual answer is at once). */
export function hasUserMessages(index: SessionIndex): boolean {
  for (let i = index.count - 1; i >= 0; i--) if (isUserMessage(index, i)) return true;
  return false;
}

/**
 * The labels of the session's live user messages with text, newest first. Throws the signal's reason
 * when it is aborted.
 */
export async function userMessageLabels(
  session: Session,
  opts: { signal?: AbortSignal; sliceMs?: number } = {},
): Promise<MessageLabel[]> {
  try {
    return await build(session, opts);
  } catch (e) {
    if (!(e instanceof StaleFileError)) throw e;
    // Someone rewrote the file under us (pi migrates old files on open): read it again.
    await session.refresh();
    return build(session, opts);
  }
}

function isUserMessage(index: SessionIndex, i: number): boolean {
  return index.isLive(i) && index.isType(i, 'message') && index.roleOf(i) === 'user';
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

async function build(
  session: Session,
  { signal, sliceMs = 8 }: { signal?: AbortSignal; sliceMs?: number },
): Promise<MessageLabel[]> {
  const index = session.index;
  let n = 0;
  const all = new Int32Array(index.count);
  for (let i = 0; i < index.count; i++) if (isUserMessage(index, i)) all[n++] = i;
  const users = all.slice(0, n);
  // undefined: the line could not be read (left out, as a whole entry that does not parse is)
  const labels = new Array<string | undefined>(n);
  for (let k = 0; k < n; k++) {
    const e = index.entryOf(users[k]);
    if (e) labels[k] = own(entryLabel(e));
  }
  await session.visitIdx(users, (k, i, bytes) => (labels[k] = own(lineLabel(index, i, bytes))), signal);
  const out: MessageLabel[] = [];
  let start = performance.now();
  for (let k = n - 1; k >= 0; k--) {
    const label = labels[k];
    if (label)
      out.push({ label, description: new Date(index.timeOf(users[k])).toLocaleString(), id: index.idOf(users[k]) });
    if ((k & 255) === 0 && performance.now() - start > sliceMs) {
      await yieldNow();
      signal?.throwIfAborted();
      start = performance.now();
    }
  }
  return out;
}

/**
 * `s` in memory of its own. A label is cut from its message's text, and V8 keeps a string sliced from
 * another (13 characters or more) as a view of it: 100,000 labels would keep their whole texts while
 * the pick is open. Slicing a joined string makes a copy of it first, and then a view of that copy.
 */
function own(s: string | undefined): string | undefined {
  return s && (s + ' ').slice(0, -1);
}

/** The label of record `i`'s line `bytes`; undefined when the line is not that entry's (any more). */
function lineLabel(index: SessionIndex, i: number, bytes: Buffer): string | undefined {
  const label = labelFromBytes(index, i, bytes);
  if (label !== undefined) return label;
  const e = parseLineOf(index.idOf(i), bytes);
  return e && entryLabel(e);
}

/**
 * The label of record `i`'s line `bytes` read from the bytes, when the reader validated the line in pi's
 * shape; undefined when it is to be parsed whole (another shape, an escaped key: it could spell one of
 * those read).
 */
export function labelFromBytes(index: SessionIndex, i: number, bytes: Buffer): string | undefined {
  const m = messageStartOf(bytes, index, i);
  return m < 0 ? undefined : labelAt(bytes, m);
}

const CONTENT = keyList('content');
const BLOCK = keyList('type', 'text');
const TEXT = Buffer.from('"text"');
const at = new Int32Array(2);
const blockAt = new Int32Array(4);

/** The label of the (valid) message object at `b[m…]`; undefined when it has an escaped key. */
function labelAt(b: Buffer, m: number): string | undefined {
  const end = b.length;
  if (objectValues(b, m, end, CONTENT, at) < 0) return undefined;
  const text = new LabelText();
  if (at[0] === 0) return text.label();
  const s = at[0];
  const e = at[1];
  // fullText: a string as it is, the text blocks of an array one after another, anything else nothing
  if (b[s] === 0x22) text.addString(b, s, e);
  else if (b[s] === 0x5b) {
    let k = skipWs(b, s + 1, e);
    while (b[k] !== 0x5d && !text.done) {
      if (b[k] === 0x7b) {
        k = objectValues(b, k, e, BLOCK, blockAt);
        if (k < 0) return undefined;
        if (isText(b, blockAt[0], blockAt[1]) && blockAt[2] !== 0) {
          if (b[blockAt[2]] === 0x22) text.addString(b, blockAt[2], blockAt[3]);
          else text.add(asText(jsonAt(b, blockAt[2], blockAt[3]) ?? ''));
        }
      } else k = skipValue(b, k);
      k = skipWs(b, k, e);
      if (b[k] === 0x2c) k = skipWs(b, k + 1, e);
    }
  }
  return text.label();
}

/** Whether the value `b[s…e)` (0, 0: no such key) is the string "text". */
function isText(b: Buffer, s: number, e: number): boolean {
  if (s === 0) return false;
  if (e - s === TEXT.length && sameBytes(b, s, TEXT)) return true;
  // (spelled with escapes, or not a string: as JSON.parse reads it)
  return b[s] === 0x22 && plainValue(b, s, e) < 0 && jsonAt(b, s, e) === 'text';
}

/** Bytes of a long string decoded first: enough for a label unless the text starts with much whitespace. */
const HEAD_BYTES = 1024;

/** The start of a message's text, built up a piece at a time until it fixes the label. */
class LabelText {
  private text = '';
  private fixed: string | undefined;

  get done(): boolean {
    return this.fixed !== undefined;
  }

  add(piece: string): void {
    if (this.done) return;
    this.text += piece;
    // (a text of at most LABEL_MAX characters cannot fix it)
    if (this.text.length > LABEL_MAX) this.fixed = labelOf(this.text, false);
  }

  /** Adds the (valid) JSON string `b[s…e)`: only its head when that fixes the label. */
  addString(b: Buffer, s: number, e: number): void {
    if (this.done) return;
    if (e - s > HEAD_BYTES + 2) {
      const cut = cutAt(b, s + 1, s + 1 + HEAD_BYTES);
      this.fixed = labelOf(this.text + (JSON.parse(`"${b.toString('utf8', s + 1, cut)}"`) as string), false);
      if (this.done) return;
    }
    this.add(jsonAt(b, s, e) as string);
  }

  label(): string {
    return this.fixed ?? labelOf(this.text, true)!;
  }
}

/**
 * oneLine(text, LABEL_MAX) (runs of whitespace as one space, trimmed, cut with an ellipsis) of a text
 * that starts with `s`, or is `s` when `whole`: undefined when that start does not fix it. It is fixed
 * once the start has more than LABEL_MAX characters besides whitespace at its ends. (One pass that stops
 * there: a regular expression over the text costs more than the rest of a label.)
 */
export function labelOf(s: string, whole: boolean): string | undefined {
  let out = '';
  // start of the run of characters that are not whitespace being passed over, or -1
  let run = -1;
  for (let k = 0; k < s.length; k++) {
    if (isSpace(s.charCodeAt(k))) {
      if (run >= 0) {
        out += s.slice(run, k);
        run = -1;
      }
      continue;
    }
    if (run < 0) {
      if (out) out += ' ';
      run = k;
    }
    if (out.length + k + 1 - run > LABEL_MAX) return `${(out + s.slice(run, k + 1)).slice(0, LABEL_MAX - 1)}…`;
  }
  if (!whole) return undefined;
  return run >= 0 ? out + s.slice(run) : out;
}

/** Whether the UTF-16 code unit `c` is whitespace as /\s/ reads it. */
function isSpace(c: number): boolean {
  if (c > 0x20 && c < 0x7f) return false;
  if (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
    return true;
  return c >= 0x2000 && c <= 0x200a;
}

/**
 * The end of a head of the string whose text starts at `b[from]`, at most at `limit` (inside the
 * string): not inside an escape, nor inside a character's UTF-8 bytes.
 */
function cutAt(b: Buffer, from: number, limit: number): number {
  let k = from;
  for (;;) {
    const step = b[k] === 0x5c ? (b[k + 1] === 0x75 ? 6 : 2) : 1;
    if (k + step > limit) break;
    k += step;
  }
  while (k > from && (b[k] & 0xc0) === 0x80) k--;
  return k;
}
