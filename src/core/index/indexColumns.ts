// The columns of a session index (typed arrays indexed by the entry's position in the file: a million
// entries cost about 40 bytes each and no object per entry, so opening makes little garbage; ids in pi's
// shape kept as numbers), how entries are added under pi's replay rules, and lookups by id. Message
// bodies are not kept: a record remembers where its line is; small entries (labels, names, model
// changes, summaries, …) are parsed at load and kept. The tree over the records is sessionIndex.ts's.
import { hexId, hexKey, U32Map } from './idKeys.js';
import {
  CodeTable,
  F_CONTENT,
  F_FAST,
  F_RAWPARENT,
  F_REPEAT,
  F_SELF,
  F_STRID,
  F_SUPERSEDED,
  grown,
  RAW_CODE,
  RecordView,
  ROLE_NAMES,
  type EntryRecord,
  type LabelInfo,
  type PendingEntry,
  emptyPending,
  pendingFrom,
  type RecordColumns,
} from './indexRecord.js';
import type {
  Diagnostic,
  LabelEntry,
  LeafEntry,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
} from '../format/types.js';

/**
 * The columns of a session index and how entries are added (pi's replay rules: leaf, labels, name),
 * with lookups by id. The tree over them (paths, children, cycles) is SessionIndex's.
 */
export abstract class IndexColumns implements RecordColumns {
  header: SessionHeader;
  readonly labels = new Map<string, LabelInfo>();
  readonly diagnostics: Diagnostic[] = [];
  name: string | undefined;
  /** Time (ms) of the session_info entry the name comes from (the last in the file), 0 when none. */
  nameTime = 0;
  /** Record of the current leaf (-1: before the first entry). */
  leafIndex = -1;
  /** Records held (superseded duplicates included); records are numbered 0…count-1 in file order. */
  count = 0;
  /** The entry `commit()` adds next. */
  readonly pending: PendingEntry = emptyPending();

  protected cap = 0;
  /** Records the columns have room for (more are made room for as they come). */
  get capacity(): number {
    return this.cap;
  }
  private idNum = new Uint32Array(0);
  private typeCol = new Uint16Array(0);
  private roleCol = new Uint16Array(0);
  protected flags = new Uint8Array(0);
  /** The record the parent id named when this one was added (-1: null, self, not there yet). */
  protected par = new Int32Array(0);
  protected lineCol = new Int32Array(0);
  private lenCol = new Int32Array(0);
  private offCol = new Float64Array(0);
  protected timeCol = new Float64Array(0);

  private readonly idStr = new Map<number, string>();
  protected readonly parentRaw = new Map<number, string>();
  private readonly typeRaw = new Map<number, string>();
  private readonly roleRaw = new Map<number, string>();
  private readonly kept = new Map<number, SessionEntry>();
  private readonly byHex: U32Map;
  private readonly byStr = new Map<string, number>();
  private readonly types = new CodeTable(['message']);
  private readonly roles = new CodeTable(ROLE_NAMES);
  protected duplicates = 0;
  private queueIds = false;
  /** Parent ids not in the index when a child named them (a later entry with that id reshapes the tree). */
  private unresolved: Set<string> | undefined;
  private views: RecordView[] = [];
  protected idMap: Map<string, EntryRecord> | undefined;

  constructor(header: SessionHeader, expected = 0) {
    this.header = header;
    // Sized for half the estimate (a table grows when it is half full): the estimate is high, and
    // random keys touch every page of the table (32 MB for 1M expected, a fault per page).
    this.byHex = new U32Map(expected / 2);
    if (expected > 0) this.reserve(expected);
  }

  // ───────────────────────────── adding ─────────────────────────────

  private reserve(min: number): void {
    if (this.cap >= min) return;
    const cap = Math.max(min, Math.ceil(this.cap * 1.5), 256);
    this.idNum = grown(this.idNum, cap);
    this.typeCol = grown(this.typeCol, cap);
    this.roleCol = grown(this.roleCol, cap);
    this.flags = grown(this.flags, cap);
    this.par = grown(this.par, cap);
    this.lineCol = grown(this.lineCol, cap);
    this.lenCol = grown(this.lenCol, cap);
    this.offCol = grown(this.offCol, cap);
    this.timeCol = grown(this.timeCol, cap);
    this.cap = cap;
    this.grewTo(cap);
  }

  /** Adds one entry in file order and applies pi's replay rules (leaf, labels, name). */
  add(rec: EntryRecord): void {
    pendingFrom(this.pending, rec);
    this.commit();
  }

  /** Adds `pending` (see add); returns its record number. */
  commit(): number {
    const p = this.pending;
    const i = this.count;
    if (i >= this.cap) this.reserve(i + 1);
    this.count = i + 1;
    let f = p.bits & (F_FAST | F_CONTENT);
    let prev = -1;
    if (p.idKey >= 0) {
      this.idNum[i] = p.idKey;
      if (!this.queueIds) prev = this.byHex.set(p.idKey, i);
      // (a full queue is put in now, this record's own id with it: its flags and line first)
      else if (this.byHex.setLater(p.idKey, i)) f = this.filedWith(i, f, p.line);
    } else {
      f |= F_STRID;
      this.idStr.set(i, p.idStr);
      prev = this.byStr.get(p.idStr) ?? -1;
      this.byStr.set(p.idStr, i);
    }
    if (prev >= 0) {
      if (f & F_STRID) this.filed(); // (the diagnostics of the ids queued before it come first)
      f = this.repeated(i, prev, f, p.line);
    }
    f = this.linkParent(i, f);
    this.flags[i] = f;
    this.typeCol[i] = p.typeCode >= 0 ? p.typeCode : this.types.code(p.type);
    if (this.typeCol[i] === RAW_CODE) this.typeRaw.set(i, p.type);
    this.roleCol[i] = p.roleCode >= 0 ? p.roleCode : this.roles.code(p.role);
    if (this.roleCol[i] === RAW_CODE) this.roleRaw.set(i, p.role!);
    this.timeCol[i] = p.time;
    this.lineCol[i] = p.line;
    this.offCol[i] = p.offset;
    this.lenCol[i] = p.length;
    const e = p.entry;
    p.entry = undefined;
    if (e) this.kept.set(i, e);
    // A later entry with an id some earlier entry named as its (then missing) parent reshapes the tree.
    if (this.unresolved?.size && this.unresolved.delete(this.idOf(i, f))) this.reshaped();
    if (this.idMap) this.idMap.set(this.idOf(i, f), this.view(i));

    // (a message's body is not kept: most entries need only the leaf moved to them)
    if (e) this.replay(i, e, f);
    else this.leafIndex = i;
    this.added(i, prev);
    return i;
  }

  /** Sets record `i`'s parent from `pending` (most entries hang under the line before them, found without a lookup); its flags `f` after. */
  private linkParent(i: number, f: number): number {
    const p = this.pending;
    let parent = -1;
    if (p.parentKind !== 0) {
      const self =
        p.parentKind === 1 ? p.idKey >= 0 && p.parentKey === p.idKey : p.idKey < 0 && p.parentStr === p.idStr;
      if (self) {
        f = this.filedWith(i, f, p.line) | F_SELF; // (the diagnostics of the ids before it come first)
        this.diagnostics.push({
          line: p.line || undefined,
          severity: 'warning',
          code: 'self-parent',
          message: `Entry "${this.idOf(i, f)}" names itself as its parent; it is shown as a root.`,
        });
      } else if (p.parentKind === 1) {
        // (with ids queued, `duplicates` may be behind: record i - 1 is the last with its id all the same)
        if (i > 0 && !this.duplicates && this.idNum[i - 1] === p.parentKey && !(this.flags[i - 1] & F_STRID))
          parent = i - 1;
        else {
          f = this.filedWith(i, f, p.line);
          parent = this.byHex.get(p.parentKey);
        }
        if (parent < 0) this.keepRawParent(i, hexId(p.parentKey));
      } else {
        parent = this.byStr.get(p.parentStr) ?? -1;
        if (parent < 0) this.keepRawParent(i, p.parentStr);
      }
      if (parent < 0 && !self) f |= F_RAWPARENT;
    }
    this.par[i] = parent;
    return f;
  }

  /** pi's replay rules for record `i` (flags `f`), a kept entry `e`: where the leaf is, labels, the name. */
  private replay(i: number, e: SessionEntry, f: number): void {
    if (e.type === 'leaf') {
      const target = (e as LeafEntry).targetId;
      if (target === null || target === undefined) this.leafIndex = -1;
      else {
        this.filed();
        const t = this.lookup(target);
        if (t >= 0) this.leafIndex = t;
        else {
          this.diagnostics.push({
            line: this.pending.line || undefined,
            severity: 'warning',
            code: 'leaf-target-missing',
            message: `Leaf record "${this.idOf(i, f)}" points at "${target}", which is not in the file; the leaf stays where it was.`,
          });
        }
      }
      return;
    }
    this.leafIndex = i;
    // (a target that is not a string names no entry: pi keys it apart, where no lookup finds it)
    if (e.type === 'label' && typeof (e as LabelEntry).targetId === 'string') {
      const l = e as LabelEntry;
      if (typeof l.label === 'string' && l.label)
        this.labels.set(l.targetId, { label: l.label, timestamp: l.timestamp });
      else this.labels.delete(l.targetId);
    } else if (e.type === 'session_info') {
      const n = (e as SessionInfoEntry).name;
      this.name = (typeof n === 'string' ? n.trim() : '') || undefined;
      this.nameTime = this.pending.time;
    }
  }

  /** Record `i` has the id of record `prev`, which it supersedes (the later entry wins, as in pi); its flags `f` with F_REPEAT. */
  private repeated(i: number, prev: number, f: number, line: number): number {
    this.duplicates++;
    this.flags[prev] |= F_SUPERSEDED;
    this.diagnostics.push({
      line: line || undefined,
      severity: 'warning',
      code: 'duplicate-id',
      message: `Entry id "${this.idOf(i, f)}" is used again (first on line ${this.lineCol[prev]}); the later entry wins, as in pi.`,
    });
    this.treeStale(false);
    return f | F_REPEAT;
  }

  /**
   * Whether ids in pi's shape go into the lookup table in batches: only while a reader adds entries and
   * reads nothing of the index but its columns. Turning it off puts in the ids queued.
   */
  queueIdsWhileReading(on: boolean): void {
    if (!on) this.filed();
    this.queueIds = on;
  }

  /** Puts the ids queued into the lookup table (duplicates found as they are). */
  private readonly filed = (): void =>
    this.byHex.setQueued((i, prev) => (this.flags[i] = this.repeated(i, prev, this.flags[i], this.lineCol[i])));

  /** filed() while record `i` (flags `f`, line `line`) is being added; its flags after. */
  private filedWith(i: number, f: number, line: number): number {
    this.flags[i] = f;
    this.lineCol[i] = line;
    this.filed();
    return this.flags[i];
  }

  private keepRawParent(i: number, id: string): void {
    this.parentRaw.set(i, id);
    (this.unresolved ??= new Set()).add(id);
  }

  private reshaped(): void {
    this.treeStale(true);
  }

  /** The tree over the records must be worked out again (`children`: the child lists too). */
  protected abstract treeStale(children: boolean): void;
  /** The columns have room for `cap` records now. */
  protected abstract grewTo(cap: number): void;
  /** Record `i` was added (`prev`: the record with the same id before it, or -1). */
  protected abstract added(i: number, prev: number): void;

  // ───────────────────────────── columns ─────────────────────────────

  idOf(i: number, f = this.flags[i]): string {
    return f & F_STRID ? this.idStr.get(i)! : hexId(this.idNum[i]);
  }

  /** The id's hex key (-1 for a string id): compares ids without making strings. */
  idKeyOf(i: number): number {
    return this.flags[i] & F_STRID ? -1 : this.idNum[i];
  }

  parentIdOf(i: number): string | null {
    const f = this.flags[i];
    if (f & F_SELF) return this.idOf(i);
    if (f & F_RAWPARENT) return this.parentRaw.get(i)!;
    const p = this.par[i];
    return p >= 0 ? this.idOf(p) : null;
  }

  typeOf(i: number): string {
    const c = this.typeCol[i];
    return c === RAW_CODE ? this.typeRaw.get(i)! : this.types.names[c]!;
  }

  /** Whether record `i` has type `type` (a code comparison). */
  isType(i: number, type: string): boolean {
    const c = this.typeCol[i];
    return c === RAW_CODE ? this.typeRaw.get(i) === type : this.types.names[c] === type;
  }

  roleOf(i: number): string | undefined {
    const c = this.roleCol[i];
    return c === RAW_CODE ? this.roleRaw.get(i) : this.roles.names[c];
  }

  /** The role's code (ROLE_NAMES; 0: none). */
  roleCodeOf(i: number): number {
    return this.roleCol[i];
  }

  timeOf(i: number): number {
    return this.timeCol[i];
  }
  lineOf(i: number): number {
    return this.lineCol[i];
  }
  offsetOf(i: number): number {
    return this.offCol[i];
  }
  lengthOf(i: number): number {
    return this.lenCol[i];
  }
  entryOf(i: number): SessionEntry | undefined {
    return this.kept.get(i);
  }
  /** Whether the entry is held in memory (small entries); others are read from the file. */
  isKept(i: number): boolean {
    return this.kept.has(i);
  }
  /** The record `i`'s parent id named when it was added (-1 if none then). */
  addedParentOf(i: number): number {
    return this.par[i];
  }
  /** F_FAST / F_CONTENT of record `i`. */
  lineBits(i: number): number {
    return this.flags[i] & (F_FAST | F_CONTENT);
  }
  /** Whether record `i` is the one its id stands for (no later duplicate). */
  isLive(i: number): boolean {
    return !(this.flags[i] & F_SUPERSEDED);
  }

  /** The record object of `i` (the same object every time). */
  view(i: number): EntryRecord {
    return (this.views[i] ??= new RecordView(this, i));
  }

  // ───────────────────────────── lookups ─────────────────────────────

  /** The record an id stands for (the last with that id), or -1. */
  lookup(id: string): number {
    const k = hexKey(id);
    return k >= 0 ? this.byHex.get(k) : (this.byStr.get(id) ?? -1);
  }

  /** `lookup(other.idOf(i))` (the record here with the id of record `i` of `other`, or -1) without making the id string. */
  lookupIdOf(other: IndexColumns, i: number): number {
    return other.flags[i] & F_STRID ? (this.byStr.get(other.idStr.get(i)!) ?? -1) : this.byHex.get(other.idNum[i]);
  }

  /** The live record with the same id as record `i`. */
  latest(i: number): number {
    if (!(this.flags[i] & F_SUPERSEDED)) return i;
    return this.flags[i] & F_STRID ? this.byStr.get(this.idStr.get(i)!)! : this.byHex.get(this.idNum[i]);
  }

  has(id: string): boolean {
    return this.lookup(id) >= 0;
  }

  get(id: string): EntryRecord | undefined {
    const i = this.lookup(id);
    return i >= 0 ? this.view(i) : undefined;
  }

  /** Number of distinct ids. */
  get size(): number {
    return this.count - this.duplicates;
  }

  get leafId(): string | null {
    return this.leafIndex >= 0 ? this.idOf(this.leafIndex) : null;
  }

  /** The live record of the current leaf, or -1. */
  get leafRecord(): number {
    return this.leafIndex >= 0 ? this.latest(this.leafIndex) : -1;
  }
}
