import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Session } from '../../src/core/session.js';
import { computeStats } from '../../src/core/stats.js';
import { entry, sessionText, tempFile, user } from '../support/tmp.js';

describe('stats counting', () => {
  it('entry types and roles named like Object.prototype members are counted like any other', async () => {
    const m = (id: string, parentId: string | null, role: string) => ({ type: 'message', id, parentId, timestamp: '2026-11-01T09:00:00.000Z', message: { role, content: 'x', timestamp: 1 } });
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
