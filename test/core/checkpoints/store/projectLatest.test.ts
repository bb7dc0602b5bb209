// The newest line of a project's other sessions, read from each manifest's end: the last snapshot line
// (an 'off' line or a torn append skipped, a line longer than one read chunk whole), the newest by time
// across sessions, this session's own manifest left out, a changed file read again.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lastSnapshot, othersNewest } from '../../../../src/core/checkpoints/store/projectLatest.js';
import { tempDir } from '../../../support/tmp.js';

const line = (commit: string, at: string, extra: object = {}) =>
  JSON.stringify({ v: 1, kind: 'after', entries: ['e1'], commit, tree: `t${commit}`, at, ...extra }) + '\n';
const off = (at: string) => JSON.stringify({ v: 1, kind: 'off', at, reason: 'too large' }) + '\n';

describe('othersNewest', () => {
  it('the last snapshot line of each manifest, the newest across sessions, not the own one', () => {
    const dir = join(tempDir('pi-cp-latest-'), 'sessions');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'a.jsonl'),
      line('a1', '2026-01-01T10:00:00.000Z') + line('a2', '2026-01-01T12:00:00.000Z'),
    );
    writeFileSync(
      join(dir, 'b.jsonl'),
      line('b1', '2026-01-01T11:00:00.000Z') + off('2026-01-01T13:00:00.000Z') + '{"v":1,"kind":"aft',
    );
    writeFileSync(join(dir, 'own.jsonl'), line('o1', '2026-01-01T14:00:00.000Z'));
    assert.equal(lastSnapshot(join(dir, 'b.jsonl'))?.commit, 'b1', "an 'off' line and a torn append skipped");
    assert.equal(othersNewest(dir, 'own')?.commit, 'a2');
    assert.equal(othersNewest(dir, 'own')?.sessionId, 'a');
    appendFileSync(join(dir, 'b.jsonl'), '\n' + line('b2', '2026-01-01T12:30:00.000Z'));
    assert.equal(othersNewest(dir, 'own')?.commit, 'b2', 'a manifest appended to since is read again');
    assert.equal(othersNewest(join(dir, 'none'), 'own'), undefined);
  });

  it('a last line longer than a read, after many lines: read whole', () => {
    const dir = join(tempDir('pi-cp-latest-long-'), 'sessions');
    mkdirSync(dir);
    const many = Array.from({ length: 5000 }, (_, i) => line(`x${i}`, '2026-01-01T10:00:00.000Z')).join('');
    const long = line('last', '2026-01-01T11:00:00.000Z', {
      changed: Array.from({ length: 20_000 }, (_, i) => `src/folder/file${i}.ts`),
    });
    writeFileSync(join(dir, 's.jsonl'), many + long + off('2026-01-01T12:00:00.000Z'));
    const got = lastSnapshot(join(dir, 's.jsonl'));
    assert.equal(got?.commit, 'last');
    assert.equal(got?.changed?.length, 20_000);
  });
});
