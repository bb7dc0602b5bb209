// The streaming line reader: lines handed over where they lie in reused (pooled) read buffers, and the
// event loop given turns while a chunk of many lines is read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferSource } from '../../../src/core/index/byteSource.js';
import { scanSource, toLine } from '../../../src/core/format/jsonl.js';
import { deepArray, deepObject } from '../../support/deepSession.js';
import { countTurns } from '../../support/loopTurns.js';

const text = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `{"${tag}":${i}}`).join('\n') + '\n';

describe('scanSource', () => {
  it('the event loop gets turns within one chunk of many lines (not only between chunks)', async () => {
    const data = Buffer.from(text(20_000, 'a')); // ~200 kB: one read
    const turns = countTurns();
    const seen: number[] = [];
    const r = await scanSource(new BufferSource(() => data), () => seen.push(turns.count), { sliceMs: 0 });
    turns.stop();
    assert.equal(seen.length, 20_000);
    assert.equal(r.endOffset, data.length);
    assert.ok(
      seen[seen.length - 1] - seen[0] >= 10,
      `turns while the chunk was read: ${seen[seen.length - 1] - seen[0]}`,
    );
  });

  it('scans at once, more than the pooled buffers, each get their own lines whole', async () => {
    const files = Array.from({ length: 6 }, (_, k) => Buffer.from(text(150_000, `f${k}`))); // ~2 MB each: two reads and more
    const got = await Promise.all(
      files.map(async (data, k) => {
        const lines: string[] = [];
        await scanSource(new BufferSource(() => data), (buf, s, e) => lines.push(buf.toString('utf8', s, e)), {
          sliceMs: 0,
        });
        return lines.every((l, i) => l === `{"f${k}":${i}}`) && lines.length === 150_000;
      }),
    );
    assert.deepEqual(got, [true, true, true, true, true, true]);
  });
});

describe('toLine', () => {
  it('writes an entry nested past JSON.stringify’s stack whole, as JSON.stringify would (a clone keeps every byte)', () => {
    for (const depth of [10_000, 200_000]) {
      const line = `{"type":"custom","customType":"x","data":${deepArray(depth)},"more":${deepObject(depth)},"id":"k1","parentId":null,"timestamp":"2026-01-05T10:00:01.000Z"}`;
      assert.ok(toLine(JSON.parse(line)) === `${line}\n`);
    }
    assert.equal(toLine({ a: [1, 'b'], c: null }), '{"a":[1,"b"],"c":null}\n');
  });
});
