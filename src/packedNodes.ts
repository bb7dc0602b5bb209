// A part of a snapshot's nodes as bytes: the projection worker packs them, the webview unpacks them.
// As columns of one JSON object (UTF-8), not an array of objects: the keys are not repeated for every
// node; the short strings that repeat (types, kinds, roles, models, tools, file paths, short texts) are
// written once and named by number; a parent is most often the node before (-1); times are the
// difference from the time before. About half the bytes of the array of objects at 100k entries, for
// every hop they cross (the extension host's message passing, the server's compression in a browser,
// two frames' clones) and for the webview's parse. Unpacking gives back the very nodes that were packed; the parts of one
// snapshot unpacked with one SharedValues share their repeated strings and lists.
import type { NodeView } from './protocol.js';

/** The columns (`v` 2); see the field comments. Absent optional values are 0. */
interface Columns {
  /** 2; 1 (earlier builds, the benchmark's dumps): every text a string. */
  v: 1 | 2;
  /** The repeated strings, named by their number in the columns below. */
  s: string[];
  id: string[];
  /** -1: the node before; k ≥ 0: node k of this part; a string: an id outside it; null: a root. */
  parent: (number | string | null)[];
  type: number[];
  kind: number[];
  /** 0: none, else 1 + a string's number. */
  role: number[];
  /** A string, or the number of a repeated string (a short text: tool results, "(no content)" repeat). */
  text: (string | number)[];
  /** The difference from the last finite time before (the first: from 0); null: not a finite number, [t]: a time that is not an integer. */
  time: (number | null | [number])[];
  label: (string | 0)[];
  /** 0: none, else the strings' numbers (an empty list is []). */
  tools: (number[] | 0)[];
  files: (number[] | 0)[];
  changed: (number[] | 0)[];
  model: number[];
  tokens: (number | null)[];
  cost: (number | null)[];
  /** 1 error, 2 noText; 4: error present but false, 8: noText present but false. */
  flags: number[];
}

const ERROR = 1;
const NO_TEXT = 2;
const ERROR_FALSE = 4;
const NO_TEXT_FALSE = 8;
/** Texts up to this length are written as repeated strings. */
const SHORT_TEXT = 48;

export function packNodes(nodes: NodeView[]): Uint8Array {
  const strings = new Map<string, number>();
  const s: string[] = [];
  const str = (x: string): number => {
    let k = strings.get(x);
    if (k === undefined) {
      k = s.length;
      strings.set(x, k);
      s.push(x);
    }
    return k;
  };
  const list = (xs: string[] | undefined): number[] | 0 => {
    if (xs === undefined) return 0;
    const out = new Array<number>(xs.length);
    for (let j = 0; j < xs.length; j++) out[j] = str(xs[j]);
    return out;
  };
  // The nodes of this part by id, made when a parent is not the node before (rare).
  let at: Map<string, number> | undefined;
  const n = nodes.length;
  const c: Columns = {
    v: 2,
    s,
    id: new Array(n),
    parent: new Array(n),
    type: new Array(n),
    kind: new Array(n),
    role: new Array(n),
    text: new Array(n),
    time: new Array(n),
    label: new Array(n),
    tools: new Array(n),
    files: new Array(n),
    changed: new Array(n),
    model: new Array(n),
    tokens: new Array(n),
    cost: new Array(n),
    flags: new Array(n),
  };
  let lastTime = 0;
  for (let k = 0; k < n; k++) {
    const node = nodes[k];
    c.id[k] = node.id;
    const p = node.parentId;
    if (p === null) c.parent[k] = null;
    else if (k > 0 && p === nodes[k - 1].id && p !== node.id) c.parent[k] = -1;
    else {
      if (!at) {
        at = new Map();
        for (let j = 0; j < n; j++) if (!at.has(nodes[j].id)) at.set(nodes[j].id, j);
      }
      const pk = at.get(p);
      c.parent[k] = pk === undefined ? p : pk === k - 1 ? -1 : pk;
    }
    c.type[k] = str(node.type);
    c.kind[k] = str(node.kind);
    c.role[k] = node.role === undefined ? 0 : 1 + str(node.role);
    c.text[k] = typeof node.text === 'string' && node.text.length <= SHORT_TEXT ? str(node.text) : node.text;
    const t = node.time;
    if (!Number.isFinite(t)) c.time[k] = null;
    else {
      c.time[k] = Number.isSafeInteger(t) && Number.isSafeInteger(lastTime) ? t - lastTime : [t];
      lastTime = t;
    }
    c.label[k] = node.label === undefined ? 0 : node.label;
    c.tools[k] = list(node.tools);
    c.files[k] = list(node.files);
    c.changed[k] = list(node.changed);
    c.model[k] = node.model === undefined ? 0 : 1 + str(node.model);
    c.tokens[k] = node.tokens === undefined ? 0 : node.tokens === 0 ? null : node.tokens;
    c.cost[k] = node.cost === undefined ? 0 : node.cost === 0 ? null : node.cost;
    c.flags[k] =
      (node.error === undefined ? 0 : node.error ? ERROR : ERROR_FALSE) |
      (node.noText === undefined ? 0 : node.noText ? NO_TEXT : NO_TEXT_FALSE);
  }
  return new TextEncoder().encode(JSON.stringify(c));
}

/**
 * The values one snapshot's parts repeat, handed to each part's unpackNodes so that the nodes share
 * them instead of each holding a copy: the repeated strings (types, kinds, models, tools, file paths,
 * short texts) and the lists of tools and files (a few hundred distinct lists in 100k nodes; each list
 * was ~30 bytes a node). About a third of the webview's bytes for the nodes. The lists are shared:
 * nothing may change a node's list in place. Dropped once the snapshot is whole.
 */
export class SharedValues {
  private readonly numberOf = new Map<string, number>();
  private readonly values: string[] = [];
  /** By the strings' numbers: one number for a list of one (most lists), else the numbers joined by commas. */
  private readonly lists = new Map<number | string, string[]>();

  /** The shared number of each of a part's repeated strings. */
  numbers(s: string[]): Int32Array {
    const out = new Int32Array(s.length);
    for (let k = 0; k < s.length; k++) {
      let n = this.numberOf.get(s[k]);
      if (n === undefined) {
        n = this.values.length;
        this.numberOf.set(s[k], n);
        this.values.push(s[k]);
      }
      out[k] = n;
    }
    return out;
  }

  /** The shared strings themselves, by a part's number (what the nodes hold). */
  strings(nums: Int32Array): string[] {
    const out = new Array<string>(nums.length);
    for (let k = 0; k < nums.length; k++) out[k] = this.values[nums[k]];
    return out;
  }

  /** The list of the strings a part names by `xs`, through the part's `numbers`. */
  list(xs: number[], nums: Int32Array): string[] {
    let key: number | string = xs.length === 1 ? nums[xs[0]] : '';
    if (xs.length !== 1) for (let j = 0; j < xs.length; j++) key += (j ? ',' : '') + nums[xs[j]];
    let out = this.lists.get(key);
    if (!out) {
      out = new Array<string>(xs.length);
      for (let j = 0; j < xs.length; j++) out[j] = this.values[nums[xs[j]]];
      this.lists.set(key, out);
    }
    return out;
  }
}

/** The nodes of one part; the parts of one snapshot pass the same `shared` (see SharedValues). */
export function unpackNodes(packed: Uint8Array, shared = new SharedValues()): NodeView[] {
  const c = JSON.parse(new TextDecoder().decode(packed)) as Columns;
  if (!c || (c.v !== 2 && c.v !== 1) || !Array.isArray(c.id))
    throw new Error('packed nodes: not columns of version 1 or 2');
  const nums = shared.numbers(c.s);
  const s = shared.strings(nums);
  const strings = (xs: number[] | 0): string[] | undefined => (xs === 0 ? undefined : shared.list(xs, nums));
  const out: NodeView[] = new Array<NodeView>(c.id.length);
  let lastTime = 0;
  for (let k = 0; k < c.id.length; k++) {
    const p = c.parent[k];
    const t = c.time[k];
    const text = c.text[k];
    let time: number;
    if (t === null)
      time = null as unknown as number; // (as JSON gave a time that was not a number)
    else {
      time = Array.isArray(t) ? t[0] : lastTime + t;
      lastTime = time;
    }
    const n: NodeView = {
      id: c.id[k],
      parentId: p === -1 ? c.id[k - 1] : typeof p === 'number' ? c.id[p] : p,
      type: s[c.type[k]],
      kind: s[c.kind[k]] as NodeView['kind'],
      text: typeof text === 'number' ? s[text] : text,
      time,
    };
    if (c.role[k]) n.role = s[c.role[k] - 1];
    if (c.label[k] !== 0) n.label = c.label[k] as string;
    const tools = strings(c.tools[k]);
    if (tools) n.tools = tools;
    const files = strings(c.files[k]);
    if (files) n.files = files;
    const changed = strings(c.changed[k]);
    if (changed) n.changed = changed;
    if (c.model[k]) n.model = s[c.model[k] - 1];
    if (c.tokens[k] !== 0) n.tokens = c.tokens[k] ?? 0;
    if (c.cost[k] !== 0) n.cost = c.cost[k] ?? 0;
    const f = c.flags[k];
    if (f & (ERROR | ERROR_FALSE)) n.error = (f & ERROR) !== 0;
    if (f & (NO_TEXT | NO_TEXT_FALSE)) n.noText = (f & NO_TEXT) !== 0;
    out[k] = n;
  }
  return out;
}
