// The in-memory index of one session file: entries in append order, lookup by id (last duplicate wins,
// as in pi), children, leaf recovery, labels, name and diagnostics. Stored as columns (typed arrays
// indexed by the entry's position in the file): a million entries cost about 40 bytes each and no
// object per entry, so opening makes little garbage. Ids in pi's shape (8 hex digits) are kept as
// numbers. Message bodies are not kept: a record remembers where its line is and bodies are read on
// demand; small entries (labels, names, model changes, summaries, …) are parsed at load and kept.
// `EntryRecord` views (one per record, made when first asked for) keep the object API for callers that
// handle a few records; hot paths use the index numbers (`…Idx`, `…Of(i)`).
import { hexId, hexKey, U32Map, writeHexId } from './idKeys.js';
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

/**
 * The entry being added, filled in by the reader and handed to `commit()` (one reused object, so that
 * adding an entry allocates nothing). Ids in pi's shape come as hex keys, others as strings.
 */
export interface PendingEntry {
  /** hexKey of the id, or -1 (then `idStr`). */
  idKey: number;
  idStr: string;
  /** 0: parentId null; 1: `parentKey` (hex); 2: `parentStr`. */
  parentKind: number;
  parentKey: number;
  parentStr: string;
  /** Type code (0 = message), or -1 (then `type`). */
  typeCode: number;
  type: string;
  /** Role code (0 = none, see ROLE_CODES), or -1 (then `role`). */
  roleCode: number;
  role: string | undefined;
  time: number;
  line: number;
  offset: number;
  length: number;
  entry: SessionEntry | undefined;
  /** F_FAST / F_CONTENT, from the fast path. */
  bits: number;
}

/** Roles with fixed codes (the fast path names them without a string lookup). */
export const ROLE_NAMES: readonly (string | undefined)[] = [undefined, 'user', 'assistant', 'toolResult', 'system', 'bashExecution', 'custom', 'branchSummary', 'compactionSummary'];

// flags per record
const F_STRID = 1; // the id is a string (idStr)
const F_SUPERSEDED = 2; // a later record has the same id
const F_SELF = 4; // parentId names the record itself
const F_RAWPARENT = 8; // parentId kept as a string: it was not in the index when the record was added
const F_REPEAT = 16; // an earlier record had the same id
/** The line is a message line in pi's shape, validated as JSON.parse would, with one "role" key. */
export const F_FAST = 32;
/** …and its message has a "content" key that is not null. */
export const F_CONTENT = 64;

const MAX_CODES = 0xfffe;
const RAW_CODE = 0xffff;

/** Names ↔ small codes (entry types, roles); past MAX_CODES names the caller keeps them per record. */
class CodeTable {
  readonly names: (string | undefined)[];
  private readonly codes = new Map<string | undefined, number>();
  constructor(initial: readonly (string | undefined)[]) {
    this.names = [...initial];
    initial.forEach((n, i) => this.codes.set(n, i));
  }
  code(name: string | undefined): number {
    const c = this.codes.get(name);
    if (c !== undefined) return c;
    if (this.names.length >= MAX_CODES) return RAW_CODE;
    this.names.push(name);
    this.codes.set(name, this.names.length - 1);
    return this.names.length - 1;
  }
}

class RecordView implements EntryRecord {
  private idCache: string | undefined;
  constructor(
    private readonly ix: SessionIndex,
    readonly seq: number,
  ) {}
  get id(): string {
    return (this.idCache ??= this.ix.idOf(this.seq));
  }
  get parentId(): string | null {
    return this.ix.parentIdOf(this.seq);
  }
  get type(): string {
    return this.ix.typeOf(this.seq);
  }
  get time(): number {
    return this.ix.timeOf(this.seq);
  }
  get line(): number {
    return this.ix.lineOf(this.seq);
  }
  get offset(): number {
    return this.ix.offsetOf(this.seq);
  }
  get length(): number {
    return this.ix.lengthOf(this.seq);
  }
  get role(): string | undefined {
    return this.ix.roleOf(this.seq);
  }
  get entry(): SessionEntry | undefined {
    return this.ix.entryOf(this.seq);
  }
  get parent(): EntryRecord | undefined {
    const p = this.ix.addedParentOf(this.seq);
    return p >= 0 ? this.ix.view(p) : undefined;
  }
}

export class SessionIndex {
  header: SessionHeader;
  readonly labels = new Map<string, LabelInfo>();
  readonly diagnostics: Diagnostic[] = [];
  name: string | undefined;
  /** Record of the current leaf (-1: before the first entry). */
  leafIndex = -1;
  /** Records held (superseded duplicates included); records are numbered 0…count-1 in file order. */
  count = 0;
  /** The entry `commit()` adds next. */
  readonly pending: PendingEntry = {
    idKey: -1,
    idStr: '',
    parentKind: 0,
    parentKey: 0,
    parentStr: '',
    typeCode: -1,
    type: '',
    roleCode: 0,
    role: undefined,
    time: 0,
    line: 0,
    offset: -1,
    length: 0,
    entry: undefined,
    bits: 0,
  };

  private cap = 0;
  private idNum = new Uint32Array(0);
  private typeCol = new Uint16Array(0);
  private roleCol = new Uint16Array(0);
  private flags = new Uint8Array(0);
  /** The record the parent id named when this one was added (-1: null, self, not there yet). */
  private par = new Int32Array(0);
  private lineCol = new Int32Array(0);
  private lenCol = new Int32Array(0);
  private offCol = new Float64Array(0);
  private timeCol = new Float64Array(0);

  private readonly idStr = new Map<number, string>();
  private readonly parentRaw = new Map<number, string>();
  private readonly typeRaw = new Map<number, string>();
  private readonly roleRaw = new Map<number, string>();
  private readonly kept = new Map<number, SessionEntry>();
  private readonly byHex: U32Map;
  private readonly byStr = new Map<string, number>();
  private readonly types = new CodeTable(['message']);
  private readonly roles = new CodeTable(ROLE_NAMES);
  private duplicates = 0;
  /** Parent ids not in the index when a child named them (a later entry with that id reshapes the tree). */
  private unresolved: Set<string> | undefined;
  private views: RecordView[] = [];
  private idMap: Map<string, EntryRecord> | undefined;

  private cycleChecked = false;
  private cyclic: Uint8Array | undefined;
  private childrenBuilt = false;
  private firstChild = new Int32Array(0);
  private lastChild = new Int32Array(0);
  private nextSibling = new Int32Array(0);
  private childN = new Int32Array(0);
  private firstRoot = -1;
  private lastRoot = -1;
  private rootN = 0;

  constructor(header: SessionHeader, expected = 0) {
    this.header = header;
    this.byHex = new U32Map(expected);
    if (expected > 0) this.reserve(expected);
  }

  // ───────────────────────────── adding ─────────────────────────────

  private reserve(min: number): void {
    if (this.cap >= min) return;
    const cap = Math.max(min, Math.ceil(this.cap * 1.5), 256);
    const g = <T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.idNum = g(this.idNum, (n) => new Uint32Array(n));
    this.typeCol = g(this.typeCol, (n) => new Uint16Array(n));
    this.roleCol = g(this.roleCol, (n) => new Uint16Array(n));
    this.flags = g(this.flags, (n) => new Uint8Array(n));
    this.par = g(this.par, (n) => new Int32Array(n));
    this.lineCol = g(this.lineCol, (n) => new Int32Array(n));
    this.lenCol = g(this.lenCol, (n) => new Int32Array(n));
    this.offCol = g(this.offCol, (n) => new Float64Array(n));
    this.timeCol = g(this.timeCol, (n) => new Float64Array(n));
    if (this.childrenBuilt) {
      this.firstChild = g(this.firstChild, (n) => new Int32Array(n));
      this.lastChild = g(this.lastChild, (n) => new Int32Array(n));
      this.nextSibling = g(this.nextSibling, (n) => new Int32Array(n));
      this.childN = g(this.childN, (n) => new Int32Array(n));
    }
    this.cap = cap;
  }

  /** Adds one entry in file order and applies pi's replay rules (leaf, labels, name). */
  add(rec: EntryRecord): void {
    const p = this.pending;
    const k = hexKey(rec.id);
    p.idKey = k;
    p.idStr = k < 0 ? rec.id : '';
    if (rec.parentId === null) p.parentKind = 0;
    else {
      const pk = hexKey(rec.parentId);
      p.parentKind = pk >= 0 ? 1 : 2;
      p.parentKey = pk;
      p.parentStr = pk >= 0 ? '' : rec.parentId;
    }
    p.typeCode = -1;
    p.type = rec.type;
    p.roleCode = -1;
    p.role = rec.role;
    p.time = rec.time;
    p.line = rec.line;
    p.offset = rec.offset;
    p.length = rec.length;
    p.entry = rec.entry;
    p.bits = 0;
    this.commit();
  }

  /** Adds `pending` (see add); returns its record number. */
  commit(): number {
    const p = this.pending;
    const i = this.count;
    if (i >= this.cap) this.reserve(i + 1);
    this.count = i + 1;
    let f = p.bits & (F_FAST | F_CONTENT);
    let prev: number;
    if (p.idKey >= 0) {
      this.idNum[i] = p.idKey;
      prev = this.byHex.set(p.idKey, i);
    } else {
      f |= F_STRID;
      this.idStr.set(i, p.idStr);
      prev = this.byStr.get(p.idStr) ?? -1;
      this.byStr.set(p.idStr, i);
    }
    if (prev >= 0) {
      this.duplicates++;
      f |= F_REPEAT;
      this.flags[prev] |= F_SUPERSEDED;
      this.diagnostics.push({
        line: p.line || undefined,
        severity: 'warning',
        code: 'duplicate-id',
        message: `Entry id "${this.idOf(i, f)}" is used again (first on line ${this.lineCol[prev]}); the later entry wins, as in pi.`,
      });
      this.cycleChecked = false;
    }
    // Parent: most entries hang under the line before them, found without a lookup.
    let parent = -1;
    if (p.parentKind !== 0) {
      const self = p.parentKind === 1 ? p.idKey >= 0 && p.parentKey === p.idKey : p.idKey < 0 && p.parentStr === p.idStr;
      if (self) {
        f |= F_SELF;
        this.diagnostics.push({ line: p.line || undefined, severity: 'warning', code: 'self-parent', message: `Entry "${this.idOf(i, f)}" names itself as its parent; it is shown as a root.` });
      } else if (p.parentKind === 1) {
        parent = i > 0 && !this.duplicates && this.idNum[i - 1] === p.parentKey && !(this.flags[i - 1] & F_STRID) ? i - 1 : this.byHex.get(p.parentKey);
        if (parent < 0) this.keepRawParent(i, hexId(p.parentKey));
      } else {
        parent = this.byStr.get(p.parentStr) ?? -1;
        if (parent < 0) this.keepRawParent(i, p.parentStr);
      }
      if (parent < 0 && !self) f |= F_RAWPARENT;
    }
    this.par[i] = parent;
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

    if (e && e.type === 'leaf') {
      const target = (e as LeafEntry).targetId;
      if (target === null || target === undefined) this.leafIndex = -1;
      else {
        const t = this.lookup(target);
        if (t >= 0) this.leafIndex = t;
        else {
          this.diagnostics.push({
            line: p.line || undefined,
            severity: 'warning',
            code: 'leaf-target-missing',
            message: `Leaf record "${this.idOf(i, f)}" points at "${target}", which is not in the file; the leaf stays where it was.`,
          });
        }
      }
    } else {
      this.leafIndex = i;
    }
    if (e) {
      if (e.type === 'label') {
        const l = e as LabelEntry;
        if (typeof l.label === 'string' && l.label) this.labels.set(l.targetId, { label: l.label, timestamp: l.timestamp });
        else this.labels.delete(l.targetId);
      } else if (e.type === 'session_info') {
        const n = (e as SessionInfoEntry).name;
        this.name = (typeof n === 'string' ? n.trim() : '') || undefined;
      }
    }
    if (this.childrenBuilt) {
      this.firstChild[i] = this.lastChild[i] = -1;
      this.childN[i] = 0;
      if (prev >= 0)
        this.childrenBuilt = false; // a duplicate id can reshape the tree: rebuilt lazily
      else this.link(i, this.treeParentIdx(i));
    }
    return i;
  }

  private keepRawParent(i: number, id: string): void {
    this.parentRaw.set(i, id);
    (this.unresolved ??= new Set()).add(id);
  }

  private reshaped(): void {
    this.cycleChecked = false;
    this.childrenBuilt = false;
  }

  // ───────────────────────────── columns ─────────────────────────────

  idOf(i: number, f = this.flags[i]): string {
    return f & F_STRID ? this.idStr.get(i)! : hexId(this.idNum[i]);
  }

  /** `["id",…]` of records `idx` as UTF-8 bytes (ids in pi's shape written without making strings). */
  idsJson(idx: ArrayLike<number>): Buffer {
    let size = 2;
    for (let k = 0; k < idx.length; k++) size += (this.flags[idx[k]] & F_STRID ? Buffer.byteLength(JSON.stringify(this.idStr.get(idx[k])!)) : 10) + 1;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    out[at++] = 0x5b;
    for (let k = 0; k < idx.length; k++) {
      const i = idx[k];
      if (k) out[at++] = 0x2c;
      if (this.flags[i] & F_STRID) at += out.write(JSON.stringify(this.idStr.get(i)!), at, 'utf8');
      else {
        out[at] = 0x22;
        writeHexId(this.idNum[i], out, at + 1);
        out[at + 9] = 0x22;
        at += 10;
      }
    }
    out[at++] = 0x5d;
    return out.subarray(0, at);
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

  /** Every record, in append order (views; prefer the index numbers for big sessions). */
  get records(): EntryRecord[] {
    const out = new Array<EntryRecord>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.view(i);
    return out;
  }

  /** id → live record, as a Map (made on first use, then kept up to date). */
  get byId(): Map<string, EntryRecord> {
    if (!this.idMap) {
      const m = new Map<string, EntryRecord>();
      for (let i = 0; i < this.count; i++) m.set(this.idOf(i), this.view(i));
      this.idMap = m;
    }
    return this.idMap;
  }

  /** Live records (the surviving record of each id) in append order. */
  live(): EntryRecord[] {
    const idx = this.liveIdx();
    const out = new Array<EntryRecord>(idx.length);
    for (let k = 0; k < idx.length; k++) out[k] = this.view(idx[k]);
    return out;
  }

  /** Record numbers of the live records, in append order. */
  liveIdx(from = 0): Int32Array {
    if (!this.duplicates) {
      const out = new Int32Array(Math.max(0, this.count - from));
      for (let k = 0; k < out.length; k++) out[k] = from + k;
      return out;
    }
    let n = 0;
    for (let i = from; i < this.count; i++) if (!(this.flags[i] & F_SUPERSEDED)) n++;
    const out = new Int32Array(n);
    n = 0;
    for (let i = from; i < this.count; i++) if (!(this.flags[i] & F_SUPERSEDED)) out[n++] = i;
    return out;
  }

  // ───────────────────────────── paths ─────────────────────────────

  /** The next record up from `i` on a path walk (pi's getBranch): -1 at a root or missing parent. */
  up(i: number): number {
    if (!this.duplicates) {
      const p = this.par[i];
      if (p >= 0) return p;
    }
    const f = this.flags[i];
    if (f & F_SELF) return -1;
    if (f & F_RAWPARENT) return this.lookup(this.parentRaw.get(i)!);
    const p = this.par[i];
    return p < 0 ? -1 : this.latest(p);
  }

  /** Root→id path (like pi's getBranch): stops at a missing parent; cycles are cut and reported. */
  branch(id: string | null | undefined): EntryRecord[] {
    if (!id) return [];
    const idx = this.branchIdx(this.lookup(id));
    const out = new Array<EntryRecord>(idx.length);
    for (let k = 0; k < idx.length; k++) out[k] = this.view(idx[k]);
    return out;
  }

  /** Record numbers root→`i` (i = -1: empty). */
  branchIdx(i: number): Int32Array {
    if (i < 0) return new Int32Array(0);
    const limit = this.size;
    let depth = 0;
    for (let cur = i; cur >= 0; cur = this.up(cur)) {
      // More steps than entries means a cycle: walk again, remembering what was seen.
      if (++depth > limit + 1) return this.branchGuarded(i);
    }
    const out = new Int32Array(depth);
    for (let cur = i, k = depth - 1; cur >= 0; cur = this.up(cur)) out[k--] = cur;
    return out;
  }

  private branchGuarded(i: number): Int32Array {
    const path: number[] = [];
    const seen = new Uint8Array(this.count);
    let cur = i;
    while (cur >= 0 && !seen[cur]) {
      seen[cur] = 1;
      path.push(cur);
      cur = this.up(cur);
    }
    if (cur >= 0) this.checkCycles();
    return Int32Array.from(path.reverse());
  }

  // ───────────────────────────── tree ─────────────────────────────

  /** The parent record used for the tree: undefined for roots (null, self, missing parent, cycle entry). */
  treeParent(rec: EntryRecord): EntryRecord | undefined {
    const p = this.treeParentIdx(rec.seq);
    return p >= 0 ? this.view(p) : undefined;
  }

  treeParentIdx(i: number): number {
    const f = this.flags[i];
    if (f & F_SELF || (this.par[i] < 0 && !(f & F_RAWPARENT))) return -1;
    if (f & F_RAWPARENT || this.duplicates) {
      this.checkCycles();
      if (this.cyclic?.[i] && this.isCycleEntry(i)) return -1;
    }
    return this.up(i);
  }

  /** Children of `id` (null = roots), oldest first by timestamp as in pi's getTree. */
  childrenOf(id: string | null): EntryRecord[] {
    let p = -1;
    if (id !== null) {
      p = this.lookup(id);
      if (p < 0) return [];
    }
    return this.childrenIdx(p).map((c) => this.view(c));
  }

  roots(): EntryRecord[] {
    return this.childrenOf(null);
  }

  /** Children of record `p` (-1: the roots), in pi's order. */
  childrenIdx(p: number): number[] {
    this.buildChildren();
    const out: number[] = [];
    for (let c = p < 0 ? this.firstRoot : this.firstChild[p]; c >= 0; c = this.nextSibling[c]) out.push(c);
    return out;
  }

  /** How many children record `p` has (-1: roots). */
  childCount(p: number): number {
    this.buildChildren();
    return p < 0 ? this.rootN : this.childN[p];
  }

  /** The first child of `p` (-1: the first root), then nextSiblingOf: walks without arrays. */
  firstChildOf(p: number): number {
    this.buildChildren();
    return p < 0 ? this.firstRoot : this.firstChild[p];
  }
  nextSiblingOf(c: number): number {
    return this.nextSibling[c];
  }

  hasCycles(): boolean {
    this.checkCycles();
    return !!this.cyclic;
  }

  private isCycleEntry(i: number): boolean {
    // Of the entries in one cycle, the earliest in the file becomes the root, so the cycle is drawn once.
    let min = i;
    let cur = this.up(i);
    let steps = 0;
    while (cur >= 0 && cur !== i && steps++ <= this.size) {
      if (cur < min) min = cur;
      cur = this.up(cur);
    }
    return min === i;
  }

  /** Marks every entry that sits on a parent cycle (O(n), iterative). */
  private checkCycles(): void {
    if (this.cycleChecked) return;
    for (const _ of this.cycleSteps());
  }

  private *cycleSteps(): Generator<void> {
    this.cyclic = undefined;
    // Parents named before their children, and no id twice: every walk goes to earlier lines, no cycle.
    if (!this.duplicates && !this.parentRaw.size) {
      this.cycleChecked = true;
      return;
    }
    const n = this.count;
    const state = new Uint8Array(n); // 1 = on the current walk, 2 = done
    let work = 0;
    // In the order ids first appear (as a Map of ids iterates), each id's live record.
    for (let s = 0; s < n; s++) {
      if (this.flags[s] & F_REPEAT) continue;
      const start = this.latest(s);
      if (state[start]) continue;
      const walk: number[] = [];
      let cur = start;
      while (cur >= 0 && !state[cur]) {
        state[cur] = 1;
        walk.push(cur);
        cur = this.up(cur);
      }
      if (cur >= 0 && state[cur] === 1) {
        // cur is on this walk: everything from it to the end of the walk is a cycle.
        const members = walk.slice(walk.indexOf(cur));
        this.cyclic ??= new Uint8Array(n);
        for (const m of members) this.cyclic[m] = 1;
        const first = Math.min(...members);
        this.diagnostics.push({
          line: this.lineCol[first] || undefined,
          severity: 'error',
          code: 'cycle',
          message: `Entries ${members
            .slice(0, 6)
            .map((m) => `"${this.idOf(m)}"`)
            .slice(0, 5)
            .join(', ')}${members.length > 5 ? ', …' : ''} form a parent cycle; the earliest is shown as a root and path walks stop at the cycle.`,
        });
      }
      for (const w of walk) state[w] = 2;
      if ((work += walk.length + 1) > 20_000) {
        work = 0;
        yield;
      }
    }
    this.cycleChecked = true;
  }

  private buildChildren(): void {
    if (this.childrenBuilt && this.cycleChecked) return;
    for (const _ of this.childSteps());
  }

  private *childSteps(): Generator<void> {
    yield* this.cycleSteps();
    const cap = this.cap;
    this.firstChild = new Int32Array(cap).fill(-1);
    this.lastChild = new Int32Array(cap).fill(-1);
    this.nextSibling = new Int32Array(cap).fill(-1);
    this.childN = new Int32Array(cap);
    this.firstRoot = this.lastRoot = -1;
    this.rootN = 0;
    for (let i = 0; i < this.count; i++) {
      if (this.flags[i] & F_SUPERSEDED) continue;
      this.link(i, this.treeParentIdx(i));
      if ((i & 0x3fff) === 0x3fff) yield;
    }
    this.childrenBuilt = true;
  }

  /** Builds the tree structures (cycle check, children) in slices, yielding to the event loop. */
  async prepareTree(sliceMs = 8): Promise<void> {
    if (this.childrenBuilt && this.cycleChecked) return;
    let t0 = performance.now();
    for (const _ of this.childSteps()) {
      if (performance.now() - t0 > sliceMs) {
        await new Promise<void>((r) => setImmediate(r));
        t0 = performance.now();
      }
    }
  }

  /** pi's sibling order: time ascending, then file order. */
  private before(a: number, b: number): boolean {
    const ta = this.timeCol[a];
    const tb = this.timeCol[b];
    return ta < tb || (ta === tb && a < b);
  }

  private link(i: number, p: number): void {
    this.nextSibling[i] = -1;
    const last = p < 0 ? this.lastRoot : this.lastChild[p];
    if (p < 0) this.rootN++;
    else this.childN[p]++;
    if (last < 0) {
      if (p < 0) this.firstRoot = this.lastRoot = i;
      else this.firstChild[p] = this.lastChild[p] = i;
      return;
    }
    if (this.before(last, i)) {
      this.nextSibling[last] = i;
      if (p < 0) this.lastRoot = i;
      else this.lastChild[p] = i;
      return;
    }
    // Out of time order (rare): walk to the insertion point.
    let prev = -1;
    let c = p < 0 ? this.firstRoot : this.firstChild[p];
    while (c >= 0 && this.before(c, i)) {
      prev = c;
      c = this.nextSibling[c];
    }
    this.nextSibling[i] = c;
    if (prev >= 0) this.nextSibling[prev] = i;
    else if (p < 0) this.firstRoot = i;
    else this.firstChild[p] = i;
  }
}
