// Arranging a session list the way pi's /resume does: threaded (forks nested under the session they
// came from, siblings by the newest activity in their subtree), recent, or by name; filtered with pi's
// query syntax (which, as in pi, turns a threaded list flat and orders it by relevance).
import { resolve } from 'node:path';
import { matchSession, parseQuery } from './sessionQuery.js';
import type { SessionInfo } from './sessionInfo.js';
import type { Searchable } from './sessionQuery.js';

export type SortMode = 'threaded' | 'recent' | 'name';

export interface ListNode {
  info: SessionInfo;
  children: ListNode[];
}

const title = (i: SessionInfo) => (i.name ?? i.firstMessage).toLowerCase();

/**
 * `textOf`: a session's whole message text, when read (a query then matches any message, as pi's
 * /resume does; else the first message).
 */
export function arrangeSessions(
  list: readonly SessionInfo[],
  sort: SortMode,
  query = '',
  canon: (p: string) => string = resolve,
  textOf: (info: SessionInfo) => Searchable['text'] = () => undefined,
): ListNode[] {
  if (query.trim()) return filtered(list, sort, query, textOf);
  const items = [...list];
  if (sort === 'recent') return items.sort((a, b) => newest(b) - newest(a)).map((info) => ({ info, children: [] }));
  if (sort === 'name')
    return items
      .sort((a, b) => title(a).localeCompare(title(b)) || newest(b) - newest(a))
      .map((info) => ({ info, children: [] }));
  return threaded(items, canon);
}

/** The sessions a query matches, flat: by relevance (threaded), by newest activity, or by name. */
function filtered(
  items: readonly SessionInfo[],
  sort: SortMode,
  query: string,
  textOf: (info: SessionInfo) => Searchable['text'],
): ListNode[] {
  const q = parseQuery(query);
  if (q.mode === 'regex' && !q.regex) return [];
  const scored = items
    .map((info) => ({ info, score: matchSession({ ...info, text: textOf(info) }, q) }))
    .filter((x) => x.score !== undefined) as { info: SessionInfo; score: number }[];
  if (sort === 'recent')
    return scored.map((x) => ({ info: x.info, children: [] })).sort((a, b) => newest(b.info) - newest(a.info));
  if (sort === 'name')
    return scored
      .map((x) => ({ info: x.info, children: [] }))
      .sort((a, b) => title(a.info).localeCompare(title(b.info)));
  return scored
    .sort((a, b) => a.score - b.score || newest(b.info) - newest(a.info))
    .map((x) => ({ info: x.info, children: [] }));
}

/**
 * Threaded: each session nested under its parent when the parent is in the list, unless the session is
 * on a parent loop (a→b→a, or its own parent): those are roots. Linear: each path is canonicalised
 * once and the loops are found in one pass; no recursion or spread, so fork chains and sessions with
 * many forks of any length arrange. Siblings by the newest activity in their subtree.
 */
function threaded(items: readonly SessionInfo[], canon: (p: string) => string): ListNode[] {
  // Canonical path → node number; a path listed twice keeps its first place and its last info.
  const byPath = new Map<string, number>();
  const nodes: ListNode[] = [];
  for (const info of items) {
    const key = canon(info.path);
    const at = byPath.get(key);
    if (at === undefined) byPath.set(key, nodes.push({ info, children: [] }) - 1);
    else nodes[at] = { info, children: [] };
  }
  const parentOf = new Int32Array(nodes.length).fill(-1);
  for (let i = 0; i < nodes.length; i++) {
    const pp = nodes[i].info.parentSessionPath;
    if (pp) parentOf[i] = byPath.get(canon(pp)) ?? -1;
  }
  const looped = onParentLoop(parentOf);
  const roots: ListNode[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const p = parentOf[i];
    if (p >= 0 && !looped[i]) nodes[p].children.push(nodes[i]);
    else roots.push(nodes[i]);
  }
  // Newest activity in each subtree: an iterative post-order (fork chains can be long).
  const latest = new Map<ListNode, number>();
  const order: ListNode[] = [];
  const stack = [...roots];
  while (stack.length) {
    const x = stack.pop()!;
    order.push(x);
    for (const c of x.children) stack.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const x = order[i];
    let m = newest(x.info);
    for (const c of x.children) {
      const v = latest.get(c) ?? 0;
      if (v > m || Number.isNaN(v)) m = v; // as Math.max: NaN wins
    }
    latest.set(x, m);
  }
  // Each list of siblings sorted by it (every list once; the order of the sorts does not matter).
  const lists: ListNode[][] = [roots];
  while (lists.length) {
    const l = lists.pop()!;
    l.sort((a, b) => (latest.get(b) ?? 0) - (latest.get(a) ?? 0));
    for (const n of l) if (n.children.length) lists.push(n.children);
  }
  return roots;
}

function newest(i: SessionInfo): number {
  return i.modified.getTime();
}

/**
 * Which records lie on a loop of `parentOf` (-1: none): nesting one of them under its parent would nest
 * it under itself. Each record has at most one parent, so a walk up from an unvisited record either meets
 * a record already settled (not a new loop) or one of its own walk (the loop is the walk from there on).
 */
function onParentLoop(parentOf: Int32Array): Uint8Array {
  const n = parentOf.length;
  const state = new Uint8Array(n); // 0: not seen, 1: on the current walk, 2: settled
  const looped = new Uint8Array(n);
  const walk: number[] = [];
  for (let s = 0; s < n; s++) {
    if (state[s]) continue;
    walk.length = 0;
    let cur = s;
    while (cur >= 0 && state[cur] === 0) {
      state[cur] = 1;
      walk.push(cur);
      cur = parentOf[cur];
    }
    if (cur >= 0 && state[cur] === 1) for (let k = walk.lastIndexOf(cur); k < walk.length; k++) looped[walk[k]] = 1;
    for (const w of walk) state[w] = 2;
  }
  return looped;
}

/** pi's relative age: now, Nm, Nh, Nd, Nw, Nmo, Ny. */
export function relativeAge(date: Date, now = Date.now()): string {
  const s = Math.max(0, (now - date.getTime()) / 1000);
  if (s < 60) return 'now';
  const m = s / 60;
  if (m < 60) return `${Math.floor(m)}m`;
  const h = m / 60;
  if (h < 24) return `${Math.floor(h)}h`;
  const d = h / 24;
  if (d < 7) return `${Math.floor(d)}d`;
  if (d < 30) return `${Math.floor(d / 7)}w`;
  if (d < 365) return `${Math.floor(d / 30)}mo`;
  return `${Math.floor(d / 365)}y`;
}
