// Session data as JSON text without a stack overflow. V8's JSON.parse reads a line nested a million
// levels deep, but JSON.stringify (and any recursive walk) throws "Maximum call stack size exceeded"
// past a few thousand levels. These try JSON.stringify first (so normal values give exactly its text) and
// otherwise write the text with an explicit stack. Pure: no Node, no DOM; the webview imports it.

/** Containers deeper than this are shown as a marker (the details pane, tool-call text, exports). */
export const SHOWN_DEPTH = 256;

/** What stands for a container cut at SHOWN_DEPTH: `levels` is its own depth. */
// (thousands by hand: the webview bundle stays free of Intl, slow to start in a fresh webview)
export const nestedMarker = (levels: number): string =>
  `[… ${String(levels).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} more levels nested too deeply to show]`;

/** How deep `v` is nested: 0 for a primitive, 1 for `[]` or `{"a":1}`. Iterative. */
export function jsonDepth(v: unknown): number {
  let max = 0;
  const values: unknown[] = [v];
  const depths: number[] = [0];
  const seen = new Set<object>();
  while (values.length) {
    const x = values.pop();
    const d = depths.pop()! + 1;
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (d > max) max = d;
    for (const y of Array.isArray(x) ? x : Object.values(x)) {
      if (y === null || typeof y !== 'object') continue;
      values.push(y);
      depths.push(d);
    }
  }
  return max;
}

/**
 * `JSON.stringify(v)`, also for a value nested too deeply for it (same text, written iteratively).
 * For text that must be exact: a token count, a copied entry. Throws only what JSON.stringify throws
 * for other reasons (a cycle, a BigInt).
 */
export function jsonExact(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return write(v, '', Infinity);
  }
}

/**
 * `JSON.stringify(v, null, indent)` for showing: when that throws (nesting past the stack, a cycle),
 * the same text with containers deeper than SHOWN_DEPTH replaced by a nestedMarker string (still JSON).
 */
export function jsonShown(v: unknown, indent?: number): string | undefined {
  try {
    return JSON.stringify(v, null, indent);
  } catch {
    return write(v, ' '.repeat(Math.min(10, Math.max(0, Math.floor(indent ?? 0)))), SHOWN_DEPTH);
  }
}

interface Frame {
  v: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  i: number;
  wrote: boolean;
}

const NONE = Symbol('none');

/** A value as JSON.stringify sees it: after toJSON; NONE for what it leaves out (undefined, functions, symbols). */
function prep(v: unknown, key: string): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    v = (v as { toJSON(k: string): unknown }).toJSON(key);
  return v === undefined || typeof v === 'function' || typeof v === 'symbol' ? NONE : v;
}

/** JSON.stringify's text, with an explicit stack; containers deeper than `maxDepth` become a marker. */
function write(root: unknown, indent: string, maxDepth: number): string | undefined {
  const parts: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  const pad = (n: number) => (indent ? `\n${indent.repeat(n)}` : '');
  const put = (x: unknown) => {
    if (x === null || typeof x !== 'object') return void parts.push(JSON.stringify(x));
    if (open.has(x)) {
      if (maxDepth === Infinity) throw new TypeError('Converting circular structure to JSON');
      return void parts.push('"[cycle]"');
    }
    if (stack.length >= maxDepth) return void parts.push(JSON.stringify(nestedMarker(jsonDepth(x))));
    open.add(x);
    const isArray = Array.isArray(x);
    parts.push(isArray ? '[' : '{');
    stack.push({ v: x as Frame['v'], keys: isArray ? undefined : Object.keys(x), i: 0, wrote: false });
  };
  const first = prep(root, '');
  if (first === NONE) return undefined;
  put(first);
  while (stack.length) {
    const f = stack[stack.length - 1];
    let next: unknown = NONE;
    let head = '';
    if (f.keys) {
      while (next === NONE && f.i < f.keys.length) {
        const k = f.keys[f.i++];
        next = prep((f.v as Record<string, unknown>)[k], k);
        head = `${JSON.stringify(k)}${indent ? ': ' : ':'}`;
      }
    } else if (f.i < (f.v as unknown[]).length) {
      const i = f.i++;
      next = prep((f.v as unknown[])[i], String(i));
      if (next === NONE) next = null;
    }
    if (next === NONE) {
      stack.pop();
      open.delete(f.v);
      parts.push(`${f.wrote ? pad(stack.length) : ''}${f.keys ? '}' : ']'}`);
      continue;
    }
    parts.push(`${f.wrote ? ',' : ''}${pad(stack.length)}${head}`);
    f.wrote = true;
    put(next);
  }
  return parts.join('');
}
