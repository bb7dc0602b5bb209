import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { computeStats, sumUsage } from '../../../src/core/context/stats.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

describe('stats counting', () => {
  it('entry types and roles named like Object.prototype members are counted like any other', async () => {
    const m = (id: string, parentId: string | null, role: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: '2026-11-01T09:00:00.000Z',
      message: { role, content: 'x', timestamp: 1 },
    });
    const s = await Session.open(
      tempFile(
        sessionText([
          user('u1', null, 'a'),
          m('p1', 'u1', '__proto__'),
          m('p2', 'p1', 'toString'),
          m('p3', 'p2', 'constructor'),
          entry('__proto__', 'e1', 'p3'),
          entry('hasOwnProperty', 'e2', 'e1'),
          entry('toString', 'e3', 'e2'),
        ]),
      ),
    );
    const st = await computeStats(s);
    const sorted = (o: object) => Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
    assert.deepStrictEqual(sorted(st.messagesByRole), [
      ['__proto__', 1],
      ['constructor', 1],
      ['toString', 1],
      ['user', 1],
    ]);
    assert.deepStrictEqual(sorted(st.entriesByType), [
      ['__proto__', 1],
      ['hasOwnProperty', 1],
      ['message', 4],
      ['toString', 1],
    ]);
    // and in the JSON that `stats --json` prints
    assert.match(JSON.stringify(st.messagesByRole), /"__proto__":1/);
    assert.equal(st.entries, 7);
  });
});

describe('usage sums', () => {
  it('a path that goes back in the file (a parent written after its child) sums every entry on it', async () => {
    const usage = (input: number, total: number) => ({
      usage: {
        input,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: input + 1,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
      },
    });
    // a2's parent a1 comes after it: the path u1 → a1 → a2 reads a1's line after a2's in the file
    const s = await Session.open(
      tempFile(
        sessionText([
          user('u1', null, 'q'),
          assistant('a2', 'a1', 'two', usage(7, 0.25)),
          assistant('a1', 'u1', 'one', usage(10, 0.5)),
        ]),
      ),
    );
    const path = s.index.branchIdx(s.index.lookup('a2'));
    assert.deepStrictEqual(
      Array.from(path, (i) => s.index.idOf(i)),
      ['u1', 'a1', 'a2'],
    );
    const sums = await sumUsage(s, path);
    assert.equal(sums.tokens.input, 17);
    assert.equal(sums.tokens.output, 2);
    assert.equal(sums.cost, 0.75);
    assert.equal(sums.models[0]?.messages, 2);
  });
});
