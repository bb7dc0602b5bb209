// One record of a session index as callers see it (EntryRecord, and the view object that reads it from
// the index's columns), what the reader hands the index for each line (PendingEntry), and the small
// tables and flags the columns are made of.
import type { SessionEntry } from '../format/types.js';
import { hexKey } from './idKeys.js';

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

/** A PendingEntry with nothing in it yet. */
export function emptyPending(): PendingEntry {
  return {
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
}

/** Fills `p` with the record `rec` (an entry added as a record, not from the reader's fast path). */
export function pendingFrom(p: PendingEntry, rec: EntryRecord): void {
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
}

/** Roles with fixed codes (the fast path names them without a string lookup). */
export const ROLE_NAMES: readonly (string | undefined)[] = [
  undefined,
  'user',
  'assistant',
  'toolResult',
  'system',
  'bashExecution',
  'custom',
  'branchSummary',
  'compactionSummary',
];

// flags per record
export const F_STRID = 1; // the id is a string (idStr)
export const F_SUPERSEDED = 2; // a later record has the same id
export const F_SELF = 4; // parentId names the record itself
export const F_RAWPARENT = 8; // parentId kept as a string: it was not in the index when the record was added
export const F_REPEAT = 16; // an earlier record had the same id
/** The line is a message line in pi's shape, validated as JSON.parse would, with one "role" key. */
export const F_FAST = 32;
/** …and its message has a "content" key that is not null. */
export const F_CONTENT = 64;

const MAX_CODES = 0xfffe;
export const RAW_CODE = 0xffff;

/** Names ↔ small codes (entry types, roles); past MAX_CODES names the caller keeps them per record. */
export class CodeTable {
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

/** What a record view reads (the index's columns). */
export interface RecordColumns {
  idOf(i: number): string;
  parentIdOf(i: number): string | null;
  typeOf(i: number): string;
  timeOf(i: number): number;
  lineOf(i: number): number;
  offsetOf(i: number): number;
  lengthOf(i: number): number;
  roleOf(i: number): string | undefined;
  entryOf(i: number): SessionEntry | undefined;
  addedParentOf(i: number): number;
  view(i: number): EntryRecord;
}

/** One record as an object (made on demand, see SessionIndex.view). */
export class RecordView implements EntryRecord {
  private idCache: string | undefined;
  constructor(
    private readonly ix: RecordColumns,
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

/** `a` copied into a new typed array of the same kind with room for `cap` elements. */
export function grown<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(
  a: T,
  cap: number,
): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}
