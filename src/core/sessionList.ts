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
  const items = [...list];
  if (query.trim()) {
    const q = parseQuery(query);
    if (q.mode === 'regex' && !q.regex) return [];
    const scored = items.map((info) => ({ info, score: matchSession({ ...info, text: textOf(info) }, q) })).filter((x) => x.score !== undefined) as { info: SessionInfo; score: number }[];
    if (sort === 'recent') return scored.map((x) => ({ info: x.info, children: [] })).sort((a, b) => newest(b.info) - newest(a.info));
    if (sort === 'name') return scored.map((x) => ({ info: x.info, children: [] })).sort((a, b) => title(a.info).localeCompare(title(b.info)));
    return scored.sort((a, b) => a.score - b.score || newest(b.info) - newest(a.info)).map((x) => ({ info: x.info, children: [] }));
  }
  if (sort === 'recent') return items.sort((a, b) => newest(b) - newest(a)).map((info) => ({ info, children: [] }));
  if (sort === 'name') return items.sort((a, b) => title(a).localeCompare(title(b)) || newest(b) - newest(a)).map((info) => ({ info, children: [] }));

  // Threaded: nest each session under its parent when the parent is in the list.
  const byPath = new Map<string, ListNode>();
  for (const info of items) byPath.set(canon(info.path), { info, children: [] });
  const roots: ListNode[] = [];
  for (const node of byPath.values()) {
    const p = node.info.parentSessionPath ? byPath.get(canon(node.info.parentSessionPath)) : undefined;
    if (p && p !== node && !isAncestor(node, p, byPath, canon)) p.children.push(node);
    else roots.push(node);
  }
  const latest = new Map<ListNode, number>();
  const subtreeLatest = (n: ListNode): number => {
    // iterative post-order: fork chains can be long
    const order: ListNode[] = [];
    const stack = [n];
    while (stack.length) {
      const x = stack.pop()!;
      order.push(x);
      stack.push(...x.children);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const x = order[i];
      latest.set(x, Math.max(newest(x.info), ...x.children.map((c) => latest.get(c) ?? 0)));
    }
    return latest.get(n)!;
  };
  for (const r of roots) subtreeLatest(r);
  const sortRec = (nodes: ListNode[]) => {
    nodes.sort((a, b) => (latest.get(b) ?? 0) - (latest.get(a) ?? 0));
    for (const n of nodes) sortRec(n.children);
  };
  sortRec(roots);
  return roots;
}

function newest(i: SessionInfo): number {
  return i.modified.getTime();
}

/** Would nesting `node` under `parent` create a loop (parent is a descendant of node)? */
function isAncestor(node: ListNode, parent: ListNode, byPath: Map<string, ListNode>, canon: (p: string) => string): boolean {
  let cur: ListNode | undefined = parent;
  const seen = new Set<ListNode>();
  while (cur && !seen.has(cur)) {
    if (cur === node) return true;
    seen.add(cur);
    cur = cur.info.parentSessionPath ? byPath.get(canon(cur.info.parentSessionPath)) : undefined;
  }
  return false;
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
