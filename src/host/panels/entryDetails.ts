// One entry as the details pane shows it: the stored entry with long strings cut, because a 60 MB tool
// output or image must not cross the message bridge whole.
import type { Session } from '../../core/session.js';
import type { EntryDetails } from '../../protocol.js';

const MAX_STRING = 64 * 1024;
const MAX_IMAGE = 4 * 1024 * 1024;

/** Copies a value, cutting strings longer than the limits (image `data` is dropped instead). */
export function truncateStrings(v: unknown, state: { cut: boolean }, key = ''): unknown {
  if (typeof v === 'string') {
    const limit = key === 'data' ? MAX_IMAGE : MAX_STRING;
    if (v.length > limit) {
      state.cut = true;
      return key === 'data' ? '' : `${v.slice(0, limit)}\n… [${(v.length - limit).toLocaleString()} more characters]`;
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => truncateStrings(x, state));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    // defineProperty: a stored key "__proto__" stays a key instead of replacing the prototype.
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: truncateStrings(x, state, k), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

export async function entryDetails(s: Session, id: string): Promise<EntryDetails> {
  const e = await s.getEntry(id);
  if (!e) throw new Error(`Entry ${id} could not be read from the file (damaged line).`);
  const state = { cut: false };
  const entry = truncateStrings(e, state);
  const onPath = s.index.branch(s.leafId).some((r) => r.id === id);
  return { id, entry, truncated: state.cut, label: s.index.labels.get(id)?.label, onPath, isLeaf: s.leafId === id };
}
