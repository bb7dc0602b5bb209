// Reading what was appended to a session file since it was read (a live pi writing), into the same
// index: the last line read must still be there byte for byte, else the file was rewritten and is read
// again from the start.
import type { ByteSource } from './byteSource.js';
import { isBlank, scanSource } from '../format/jsonl.js';
import { LineScan } from '../scan/scanResult.js';
import type { EntryRecord } from './sessionIndex.js';
import type { Diagnostic } from '../format/types.js';
import { ingestLine, lineTail, type LineSink, type LoadedSession, type ReadOptions } from './reader.js';

export interface TailResult {
  added: EntryRecord[];
  /** The file no longer continues what was read: the caller must read it again from the start. */
  rewritten: boolean;
}

/** Reads what was appended since `loaded.state`, adding the new entries to the index. */
export async function readTail(src: ByteSource, loaded: LoadedSession, opts: ReadOptions = {}): Promise<TailResult> {
  const st = loaded.state;
  const size = await src.size();
  if (size < st.endOffset + (st.tailEntryOffset >= 0 ? st.tailBytes : 0)) return { added: [], rewritten: true };
  if (st.lastLine) {
    const b = Buffer.alloc(st.lastLine.bytes.length + 1);
    const at = st.endOffset - b.length;
    const n = at >= 0 ? await src.read(b, 0, b.length, at) : 0;
    if (n !== b.length || b[b.length - 1] !== 0x0a || !b.subarray(0, b.length - 1).equals(st.lastLine.bytes)) {
      return { added: [], rewritten: true };
    }
  }
  if (size === st.endOffset + st.tailBytes) return { added: [], rewritten: false };
  if (loaded.legacy) return { added: [], rewritten: true };
  const index = loaded.index;
  // A torn last line may have been a line still being written: forget that report, re-read it.
  for (let i = index.diagnostics.length - 1; i >= 0; i--)
    if (index.diagnostics[i].code === 'torn-last-line') index.diagnostics.splice(i, 1);
  const before = index.count;
  const diags: Diagnostic[] = [];
  const sink: LineSink = { scan: new LineScan(), observe: opts.onMessageLine };
  let lastStart = -1;
  let lastEnd = -1;
  const res = await scanSource(
    src,
    (buf, start, end, lineNo, offset) => {
      if (isBlank(buf, start, end)) return;
      lastStart = offset;
      lastEnd = offset + end - start;
      if (offset === st.tailEntryOffset) return; // already indexed as an unterminated last line
      ingestLine(index, buf, start, end, lineNo, offset, diags, sink);
    },
    {
      from: st.endOffset,
      firstLine: st.nextLine,
      signal: opts.signal,
      sliceMs: opts.sliceMs,
      maxLineBytes: opts.maxLineBytes,
    },
  );
  let tailEntryOffset = -1;
  if (res.tail.length && !isBlank(res.tail)) {
    if (res.endOffset === st.tailEntryOffset) tailEntryOffset = st.tailEntryOffset;
    else {
      if (ingestLine(index, res.tail, 0, res.tail.length, res.nextLine, res.endOffset, [], { scan: sink.scan }))
        tailEntryOffset = res.endOffset;
    }
  }
  for (const d of diags) index.diagnostics.push(d);
  const lastLine = lastEnd >= 0 ? await lineTail(src, lastStart, lastEnd) : st.lastLine;
  loaded.state = {
    endOffset: res.endOffset,
    nextLine: res.nextLine,
    size: res.size,
    tailBytes: res.tail.length,
    tailEntryOffset,
    lastLine,
  };
  const added: EntryRecord[] = [];
  for (let i = before; i < index.count; i++) added.push(index.view(i));
  return { added, rewritten: false };
}
