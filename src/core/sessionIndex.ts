// The in-memory index of one session file: entries in append order, `byId` (last duplicate wins, as in
// pi), lazy children, leaf recovery, labels, name and diagnostics. Message bodies are not kept: a
// record remembers where its line is, and `EntryStore` loads full entries on demand. Small entries
// (labels, names, model changes, summaries, …) are parsed at load and kept.
import type { Diagnostic, LabelEntry, LeafEntry, SessionEntry, SessionHeader, SessionInfoEntry } from './types.js';

export interface EntryRecord {
  id: string;
  parentId: string | null;
  type: string;
  /** Entry timestamp in ms since the epoch (0 when missing or invalid). */
  time: number;
  /** 1-based line number in the file (0 for entries not yet in a file). */
  line: number;
  /** Byte range of the line in the file; offset -1 when the entry only lives in memory. */
  offset: number;
  length: number;
  /** `message.role` for message entries. */
  role?: string;
  /** The whole entry, when held in memory. */
  entry?: SessionEntry;
  /** The record `parentId` named when this one was added (path walks follow it without lookups). */
  parent?: EntryRecord;
  /** Position in append order. */
  seq: number;
}

export interface LabelInfo {
  label: string;
  timestamp: string;
}

const ROOT = '\u0000root';

export class SessionIndex {
  header: SessionHeader;
  readonly records: EntryRecord[] = [];
  readonly byId = new Map<string, EntryRecord>();
  readonly labels = new Map<string, LabelInfo>();
  readonly diagnostics: Diagnostic[] = [];
  leafId: string | null = null;
  name: string | undefined;
  /** The id of the last `leaf` record, if the current leaf came from one. */
  private children: Map<string, EntryRecord[]> | undefined;
  private cycleChecked = false;
  private duplicates = 0;
  private readonly cyclic = new Set<string>();

  constructor(header: SessionHeader) {
    this.header = header;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Adds one entry in file order and applies pi's replay rules (leaf, labels, name). */
  add(rec: EntryRecord): void {
    // One map operation per entry: a set that does not grow the map replaced an earlier entry.
    const size = this.byId.size;
    this.byId.set(rec.id, rec);
    const prev = this.byId.size === size ? this.earlier(rec.id) : undefined;
    if (prev) {
      this.duplicates++;
      this.diagnostics.push({
        line: rec.line || undefined,
        severity: 'warning',
        code: 'duplicate-id',
        message: `Entry id "${rec.id}" is used again (first on line ${prev.line}); the later entry wins, as in pi.`,
      });
      this.cycleChecked = false;
    }
    if (rec.parentId === rec.id) {
      this.diagnostics.push({ line: rec.line || undefined, severity: 'warning', code: 'self-parent', message: `Entry "${rec.id}" names itself as its parent; it is shown as a root.` });
    }
    rec.seq = this.records.length;
    // Share the parent's id string instead of keeping a copy per child (memory at 100k entries).
    if (rec.parentId !== null && rec.parentId !== rec.id) {
      // Most entries hang under the line before them: no map lookup for those.
      const last = this.records[this.records.length - 1];
      const parent = last !== undefined && last.id === rec.parentId && !this.duplicates ? last : this.byId.get(rec.parentId);
      if (parent) {
        rec.parentId = parent.id;
        rec.parent = parent;
      }
    }
    this.records.push(rec);
    const e = rec.entry;
    if (rec.type === 'leaf' && e) {
      const target = (e as LeafEntry).targetId;
      if (target === null || target === undefined) this.leafId = null;
      else if (this.byId.has(target)) this.leafId = target;
      else {
        this.diagnostics.push({
          line: rec.line || undefined,
          severity: 'warning',
          code: 'leaf-target-missing',
          message: `Leaf record "${rec.id}" points at "${target}", which is not in the file; the leaf stays where it was.`,
        });
      }
    } else {
      this.leafId = rec.id;
    }
    if (rec.type === 'label' && e) {
      const l = e as LabelEntry;
      if (typeof l.label === 'string' && l.label) this.labels.set(l.targetId, { label: l.label, timestamp: l.timestamp });
      else this.labels.delete(l.targetId);
    } else if (rec.type === 'session_info' && e) {
      const n = (e as SessionInfoEntry).name;
      this.name = (typeof n === 'string' ? n.trim() : '') || undefined;
    }
    if (this.children) this.insertChild(rec, prev);
  }

  /** The latest record with `id` before the one being added (only asked for duplicates: rare). */
  private earlier(id: string): EntryRecord | undefined {
    for (let i = this.records.length - 1; i >= 0; i--) if (this.records[i].id === id) return this.records[i];
    return undefined;
  }

  get(id: string): EntryRecord | undefined {
    return this.byId.get(id);
  }

  /** Root→id path (like pi's getBranch): stops at a missing parent; cycles are cut and reported. */
  branch(id: string | null | undefined): EntryRecord[] {
    if (!id) return [];
    const path: EntryRecord[] = [];
    const limit = this.byId.size;
    // Parent pointers are exact while no id repeats (a later duplicate would take over the id).
    const pointers = !this.duplicates;
    let cur = this.byId.get(id);
    while (cur) {
      // More steps than entries means a cycle: walk again, remembering what was seen.
      if (path.length > limit) return this.branchGuarded(id);
      path.push(cur);
      cur = pointers && cur.parent ? cur.parent : cur.parentId !== null && cur.parentId !== cur.id ? this.byId.get(cur.parentId) : undefined;
    }
    return path.reverse();
  }

  private branchGuarded(id: string): EntryRecord[] {
    const path: EntryRecord[] = [];
    const seen = new Set<string>();
    let cur = this.byId.get(id);
    while (cur && !seen.has(cur.id)) {
      seen.add(cur.id);
      path.push(cur);
      cur = cur.parentId !== null && cur.parentId !== cur.id ? this.byId.get(cur.parentId) : undefined;
    }
    if (cur) this.checkCycles();
    return path.reverse();
  }

  /** The parent record used for the tree: undefined for roots (null, self, missing parent, cycle entry). */
  treeParent(rec: EntryRecord): EntryRecord | undefined {
    if (rec.parentId === null || rec.parentId === rec.id) return undefined;
    this.checkCycles();
    if (this.cyclic.has(rec.id) && this.isCycleEntry(rec)) return undefined;
    return this.byId.get(rec.parentId);
  }

  /** Children of `id` (null = roots), oldest first by timestamp as in pi's getTree. */
  childrenOf(id: string | null): EntryRecord[] {
    if (!this.children) this.buildChildren();
    return this.children!.get(id ?? ROOT) ?? [];
  }

  roots(): EntryRecord[] {
    return this.childrenOf(null);
  }

  /** Live records (the surviving record of each id) in append order. */
  live(): EntryRecord[] {
    // Without duplicate ids every record is live: skip 100k map lookups.
    if (!this.duplicates) return this.records.slice();
    return this.records.filter((r) => this.byId.get(r.id) === r);
  }

  hasCycles(): boolean {
    this.checkCycles();
    return this.cyclic.size > 0;
  }

  private isCycleEntry(rec: EntryRecord): boolean {
    // Of the entries in one cycle, the earliest in the file becomes the root, so the cycle is drawn once.
    let min = rec;
    let cur = this.byId.get(rec.parentId!);
    let steps = 0;
    while (cur && cur !== rec && steps++ <= this.byId.size) {
      if (cur.seq < min.seq) min = cur;
      cur = cur.parentId !== null ? this.byId.get(cur.parentId) : undefined;
    }
    return min === rec;
  }

  /** Marks every entry that sits on a parent cycle (O(n), iterative). */
  private checkCycles(): void {
    if (this.cycleChecked) return;
    for (const _ of this.cycleSteps());
  }

  private *cycleSteps(): Generator<void> {
    this.cyclic.clear();
    const state = new Map<string, 1 | 2>(); // 1 = on the current walk, 2 = done
    let n = 0;
    for (const start of this.byId.values()) {
      if (state.has(start.id)) continue;
      const walk: EntryRecord[] = [];
      let cur: EntryRecord | undefined = start;
      while (cur && !state.has(cur.id)) {
        state.set(cur.id, 1);
        walk.push(cur);
        cur = cur.parentId !== null && cur.parentId !== cur.id ? this.byId.get(cur.parentId) : undefined;
      }
      if (cur && state.get(cur.id) === 1) {
        // cur is on this walk: everything from it to the end of the walk is a cycle.
        const members = walk.slice(walk.indexOf(cur));
        for (const m of members) this.cyclic.add(m.id);
        const first = members.reduce((a, b) => (a.seq < b.seq ? a : b));
        this.diagnostics.push({
          line: first.line || undefined,
          severity: 'error',
          code: 'cycle',
          message: `Entries ${members
            .map((m) => `"${m.id}"`)
            .slice(0, 5)
            .join(', ')}${members.length > 5 ? ', …' : ''} form a parent cycle; the earliest is shown as a root and path walks stop at the cycle.`,
        });
      }
      for (const w of walk) state.set(w.id, 2);
      if ((n += walk.length + 1) > 2_000) {
        n = 0;
        yield;
      }
    }
    this.cycleChecked = true;
  }

  private keyOf(rec: EntryRecord): string {
    const p = this.treeParent(rec);
    return p ? p.id : ROOT;
  }

  private buildChildren(): void {
    for (const _ of this.childSteps());
  }

  private *childSteps(): Generator<void> {
    yield* this.cycleSteps();
    const map = new Map<string, EntryRecord[]>();
    let n = 0;
    for (const rec of this.records) {
      if (this.byId.get(rec.id) !== rec) continue;
      const key = this.keyOf(rec);
      let list = map.get(key);
      if (!list) map.set(key, (list = []));
      list.push(rec);
      if (++n % 2_000 === 0) yield;
    }
    for (const list of map.values()) if (list.length > 1) list.sort(byTime);
    this.children = map;
  }

  /** Builds the tree structures (cycle check, children) in slices, yielding to the event loop. */
  async prepareTree(sliceMs = 8): Promise<void> {
    if (this.children && this.cycleChecked) return;
    let t0 = performance.now();
    for (const _ of this.childSteps()) {
      if (performance.now() - t0 > sliceMs) {
        await new Promise<void>((r) => setImmediate(r));
        t0 = performance.now();
      }
    }
  }

  private insertChild(rec: EntryRecord, replaced: EntryRecord | undefined): void {
    if (replaced) {
      // A duplicate id can reshape the tree; rebuild lazily.
      this.children = undefined;
      return;
    }
    const key = this.keyOf(rec);
    let list = this.children!.get(key);
    if (!list) this.children!.set(key, (list = []));
    let i = list.length;
    while (i > 0 && byTime(list[i - 1], rec) > 0) i--;
    list.splice(i, 0, rec);
  }
}

function byTime(a: EntryRecord, b: EntryRecord): number {
  const d = a.time - b.time;
  return d !== 0 ? d : a.seq - b.seq;
}
