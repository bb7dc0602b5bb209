import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionInfo } from '../../src/core/sessionInfo.js';
import { arrangeSessions, relativeAge } from '../../src/core/sessionList.js';
import { fuzzyScore, matchSession, parseQuery } from '../../src/core/sessionQuery.js';

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
  const s = { id: '0199abcd-1111', name: 'Refactor the session tree', cwd: '/home/dev/pi-tree', firstMessage: 'please  fix   the parser' };
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
