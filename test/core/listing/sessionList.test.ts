import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionInfo } from '../../../src/core/listing/sessionInfo.js';
import { arrangeSessions, relativeAge } from '../../../src/core/listing/sessionList.js';
import { fuzzyScore, matchSession, parseQuery } from '../../../src/core/listing/sessionQuery.js';

const info = (path: string, modified: number, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  path,
  id: path.replace(/\W/g, ''),
  cwd: '/home/dev/proj',
  created: new Date(modified - 1000),
  modified: new Date(modified),
  messageCount: 3,
  firstMessage: `first message of ${path}`,
  size: 10,
  mtimeMs: modified,
  version: 3,
  ...extra,
});

describe('session list arrangement (pi /resume)', () => {
  const a = info('/s/a.jsonl', 1000, { name: 'Alpha work' });
  const b = info('/s/b.jsonl', 5000, { parentSessionPath: '/s/a.jsonl' });
  const c = info('/s/c.jsonl', 3000);
  const d = info('/s/d.jsonl', 2000, { parentSessionPath: '/s/b.jsonl', name: 'deep fork' });
  const orphan = info('/s/e.jsonl', 4000, { parentSessionPath: '/gone.jsonl' });

  it('threaded: forks nested under their parent; roots ordered by newest activity in their subtree', () => {
    const roots = arrangeSessions([a, b, c, d, orphan], 'threaded');
    assert.deepStrictEqual(
      roots.map((n) => n.info.path),
      ['/s/a.jsonl', '/s/e.jsonl', '/s/c.jsonl'],
    );
    assert.deepStrictEqual(
      roots[0].children.map((n) => n.info.path),
      ['/s/b.jsonl'],
    );
    assert.deepStrictEqual(
      roots[0].children[0].children.map((n) => n.info.path),
      ['/s/d.jsonl'],
    );
  });

  it('a parent loop does not hang or lose sessions', () => {
    const x = info('/s/x.jsonl', 1, { parentSessionPath: '/s/y.jsonl' });
    const y = info('/s/y.jsonl', 2, { parentSessionPath: '/s/x.jsonl' });
    const roots = arrangeSessions([x, y], 'threaded');
    const all: string[] = [];
    const walk = (ns: typeof roots) => ns.forEach((n) => (all.push(n.info.path), walk(n.children)));
    walk(roots);
    assert.deepStrictEqual(all.sort(), ['/s/x.jsonl', '/s/y.jsonl']);
  });

  it('sessions on a parent loop are roots; a session hanging off a loop nests under its parent', () => {
    const shape = (ns: ReturnType<typeof arrangeSessions>): unknown[] =>
      ns.map((n) => [n.info.path, shape(n.children)]);
    // a→b→a, c's parent is a (on the loop), s is its own parent, t's parent is s
    const la = info('/s/la.jsonl', 10, { parentSessionPath: '/s/lb.jsonl' });
    const lb = info('/s/lb.jsonl', 20, { parentSessionPath: '/s/la.jsonl' });
    const lc = info('/s/lc.jsonl', 30, { parentSessionPath: '/s/la.jsonl' });
    const self = info('/s/self.jsonl', 15, { parentSessionPath: '/s/./self.jsonl' });
    const t = info('/s/t.jsonl', 5, { parentSessionPath: '/s/self.jsonl' });
    assert.deepStrictEqual(shape(arrangeSessions([la, lb, lc, self, t], 'threaded')), [
      ['/s/la.jsonl', [['/s/lc.jsonl', []]]],
      ['/s/lb.jsonl', []],
      ['/s/self.jsonl', [['/s/t.jsonl', []]]],
    ]);
    // a longer loop x→y→z→x with a tail w→x: the loop's members are roots, w nests under x
    const x = info('/s/x.jsonl', 1, { parentSessionPath: '/s/z.jsonl' });
    const y = info('/s/y.jsonl', 3, { parentSessionPath: '/s/x.jsonl' });
    const z = info('/s/z.jsonl', 2, { parentSessionPath: '/s/y.jsonl' });
    const w = info('/s/w.jsonl', 4, { parentSessionPath: '/s/x.jsonl' });
    assert.deepStrictEqual(shape(arrangeSessions([w, x, y, z], 'threaded')), [
      ['/s/x.jsonl', [['/s/w.jsonl', []]]],
      ['/s/y.jsonl', []],
      ['/s/z.jsonl', []],
    ]);
  });

  it('a fork chain of 20,000 arranges (no walk up the chain per session, no recursion per level)', () => {
    const n = 20_000;
    const chain: SessionInfo[] = [];
    for (let i = 0; i < n; i++)
      chain.push(info(`/c/${i}.jsonl`, 1000 + i, i ? { parentSessionPath: `/c/${i - 1}.jsonl` } : {}));
    const roots = arrangeSessions(chain.reverse(), 'threaded');
    assert.equal(roots.length, 1);
    let node = roots[0];
    for (let i = 0; i < n - 1; i++) {
      assert.equal(node.info.path, `/c/${i}.jsonl`);
      assert.equal(node.children.length, 1);
      node = node.children[0];
    }
    assert.equal(node.info.path, `/c/${n - 1}.jsonl`);
    assert.equal(node.children.length, 0);
  });

  it('a session with 200,000 forks arranges (its children are not spread into a call)', () => {
    const m = 200_000;
    const star: SessionInfo[] = [info('/p/root.jsonl', 1)];
    for (let i = 0; i < m; i++)
      star.push(info(`/p/${i}.jsonl`, 10 + (i % 1000), { parentSessionPath: '/p/root.jsonl' }));
    const [top, ...rest] = arrangeSessions(star, 'threaded');
    assert.equal(rest.length, 0);
    assert.equal(top.info.path, '/p/root.jsonl');
    assert.equal(top.children.length, m);
    // newest first; equal times keep the list's order (a stable sort)
    assert.equal(top.children[0].info.path, '/p/999.jsonl');
    assert.equal(top.children[1].info.path, '/p/1999.jsonl');
    assert.equal(top.children[m - 1].info.path, `/p/${m - 1000}.jsonl`);
    for (let k = 1; k < m; k++) assert.ok(top.children[k - 1].info.modified >= top.children[k].info.modified);
  });

  it('recent and name sorts are flat', () => {
    assert.deepStrictEqual(
      arrangeSessions([a, b, c], 'recent').map((n) => n.info.path),
      ['/s/b.jsonl', '/s/c.jsonl', '/s/a.jsonl'],
    );
    assert.deepStrictEqual(
      arrangeSessions([c, b, a], 'name').map((n) => n.info.path),
      ['/s/a.jsonl', '/s/b.jsonl', '/s/c.jsonl'],
    );
  });

  it('a query flattens a threaded list and orders by relevance (name hits first)', () => {
    const r = arrangeSessions([a, b, c, d], 'threaded', 'fork');
    assert.deepStrictEqual(
      r.map((n) => n.info.path),
      ['/s/d.jsonl'],
    );
    const r2 = arrangeSessions([a, b, c, d], 'threaded', 'alpha');
    assert.equal(r2[0].info.path, '/s/a.jsonl');
    assert.deepStrictEqual(arrangeSessions([a, b], 'threaded', 're:('), []);
  });

  it('relative ages like pi', () => {
    const now = Date.UTC(2026, 0, 10);
    assert.equal(relativeAge(new Date(now - 5_000), now), 'now');
    assert.equal(relativeAge(new Date(now - 5 * 60_000), now), '5m');
    assert.equal(relativeAge(new Date(now - 3 * 3600_000), now), '3h');
    assert.equal(relativeAge(new Date(now - 2 * 86400_000), now), '2d');
    assert.equal(relativeAge(new Date(now - 14 * 86400_000), now), '2w');
    assert.equal(relativeAge(new Date(now - 60 * 86400_000), now), '2mo');
    assert.equal(relativeAge(new Date(now - 800 * 86400_000), now), '2y');
  });
});

describe('pi query syntax', () => {
  const s = {
    id: '0199abcd-1111',
    name: 'Refactor the session tree',
    cwd: '/home/dev/pi-tree',
    firstMessage: 'please  fix   the parser',
  };
  it('tokens must all match; phrases are whitespace-normalised; unbalanced quotes fall back', () => {
    assert.ok(matchSession(s, parseQuery('refactor tree')) !== undefined);
    assert.equal(matchSession(s, parseQuery('refactor banana')), undefined);
    assert.ok(matchSession(s, parseQuery('"fix the parser"')) !== undefined);
    assert.equal(matchSession(s, parseQuery('"the fix"')), undefined);
    const q = parseQuery('"unclosed phrase');
    assert.equal(q.mode, 'tokens');
    assert.deepStrictEqual(q.mode === 'tokens' && q.tokens.map((t) => t.kind), ['fuzzy', 'fuzzy']);
  });
  it('re: is case-insensitive; an invalid pattern matches nothing', () => {
    assert.ok(matchSession(s, parseQuery('re:^refactor')) !== undefined);
    assert.equal(matchSession(s, parseQuery('re:[')), undefined);
    assert.equal(matchSession(s, parseQuery('re:')), undefined);
  });
  it('fuzzy subsequences match names and folders, better on word starts', () => {
    assert.ok(fuzzyScore('rst', 'Refactor the session tree') !== undefined);
    assert.equal(fuzzyScore('zz', 'abc'), undefined);
    assert.ok(fuzzyScore('tree', 'session tree')! < fuzzyScore('tree', 'tXrXeXe')!);
    assert.ok(matchSession(s, parseQuery('pitr')) !== undefined, 'scattered in the cwd');
  });
});
