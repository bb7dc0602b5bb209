// One entry as the details pane shows it: the stored entry with long strings cut, because a 60 MB tool
// output or image must not cross the webview channel whole, and with nesting past SHOWN_DEPTH cut, because
// a value thousands of levels deep overflows the stack of the webview channel's and the webview's JSON.
import type { Session } from '../../core/session/session.js';
import type { EntryDetails } from '../../protocol.js';
import { SHOWN_DEPTH, jsonDepth, nestedMarker } from '../../shared/safeJson.js';

const MAX_STRING = 64 * 1024;
const MAX_IMAGE = 4 * 1024 * 1024;

type Obj = Record<string, unknown>;

/**
 * Copies a value, cutting strings longer than the limits (image `data` is dropped instead) and
 * containers deeper than SHOWN_DEPTH (a nestedMarker string instead). Iterative: any depth.
 */
export function truncateStrings(v: unknown, state: { cut: boolean }, key = ''): unknown {
  // Each copied container is filled from its source in turn; `depth` counts the containers above it.
  const work: { from: unknown[] | Obj; to: unknown[] | Obj; depth: number }[] = [];
  const copy = (x: unknown, k: string, depth: number): unknown => {
    if (typeof x === 'string') {
      const limit = k === 'data' ? MAX_IMAGE : MAX_STRING;
      if (x.length <= limit) return x;
      state.cut = true;
      return k === 'data' ? '' : `${x.slice(0, limit)}\n… [${(x.length - limit).toLocaleString()} more characters]`;
    }
    if (!x || typeof x !== 'object') return x;
    if (depth >= SHOWN_DEPTH) {
      state.cut = true;
      return nestedMarker(jsonDepth(x));
    }
    const to = Array.isArray(x) ? [] : {};
    work.push({ from: x as unknown[] | Obj, to, depth: depth + 1 });
    return to;
  };
  const out = copy(v, key, 0);
  while (work.length) {
    const { from, to, depth } = work.pop()!;
    if (Array.isArray(from)) for (const x of from) (to as unknown[]).push(copy(x, '', depth));
    // defineProperty: a stored key "__proto__" stays a key instead of replacing the prototype.
    else
      for (const [k, x] of Object.entries(from))
        Object.defineProperty(to, k, {
          value: copy(x, k, depth),
          enumerable: true,
          writable: true,
          configurable: true,
        });
  }
  return out;
}

export async function entryDetails(s: Session, id: string): Promise<EntryDetails> {
  const e = await s.getEntry(id);
  if (!e) throw new Error(`Entry ${id} could not be read from the file (damaged line).`);
  const state = { cut: false };
  const entry = truncateStrings(e, state);
  const onPath = s.index.branch(s.leafId).some((r) => r.id === id);
  return { id, entry, truncated: state.cut, label: s.index.labels.get(id)?.label, onPath, isLeaf: s.leafId === id };
}
