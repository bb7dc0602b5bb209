// The selection (an item key and the entry it stands for) with its back/forward history, and where a
// selection lands after a re-derivation: its item, the item now showing its entry, or the nearest
// visible ancestor; without any, the leaf.
import type { Derived, Item } from '../model/derive';
import type { TreeModel } from '../model/treeModel';

const HISTORY_MAX = 200;

export interface Sel {
  /** Item key: an entry id, or `seg:<first entry id>`. */
  key: string;
  entryId: string;
}

export class Selection {
  current: Sel | undefined;
  private back: string[] = [];
  private fwd: string[] = [];

  get key(): string | undefined {
    return this.current?.key;
  }

  set(key: string, entryId = key): void {
    this.current = { key, entryId };
  }

  /** Before a move to `key` that counts as a visit: the current key goes back, forward is dropped. */
  remember(key: string): void {
    const prev = this.current?.key;
    if (!prev || prev === key) return;
    this.back.push(prev);
    if (this.back.length > HISTORY_MAX) this.back.shift();
    this.fwd = [];
  }

  /**
   * The newest key in the back (or forward) history that still `exists`, the current key going on the
   * other stack; keys that no longer exist are dropped on the way.
   */
  travel(dir: 'back' | 'forward', exists: (key: string) => boolean): string | undefined {
    const from = dir === 'back' ? this.back : this.fwd;
    const to = dir === 'back' ? this.fwd : this.back;
    while (from.length) {
      const key = from.pop()!;
      if (!exists(key)) continue;
      if (this.current) to.push(this.current.key);
      return key;
    }
    return undefined;
  }
}

/** Where selection `s` lands in a new derivation. */
export function resolveSelection(
  s: Sel | undefined,
  d: Derived,
  model: TreeModel,
  keyIndex: ReadonlyMap<string, Item>,
): Sel | undefined {
  if (s) {
    if (keyIndex.has(s.key)) return s;
    let i = model.index.get(s.entryId);
    if (i !== undefined && !d.visible[i]) i = d.vparent[i] >= 0 ? d.vparent[i] : undefined;
    const it = i !== undefined ? d.itemOf[i] : undefined;
    if (it) return { key: it.key, entryId: model.nodes[it.entry].id };
  }
  let li = model.leaf >= 0 ? model.leaf : -1;
  if (li >= 0 && !d.visible[li]) li = d.vparent[li];
  const it = li >= 0 ? d.itemOf[li] : d.rows[d.rows.length - 1];
  return it ? { key: it.key, entryId: model.nodes[it.entry].id } : undefined;
}
