// The id table filled in batches while a session is read (U32Map.setLater, IndexColumns
// queueIdsWhileReading): the index it gives is the one adding the entries one at a time gives —
// duplicates, parents, leaf records and the diagnostics in their order — across many batches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BufferSource } from '../../../src/core/index/byteSource.js';
import { readSession } from '../../../src/core/index/reader.js';
import { readTail } from '../../../src/core/index/tailRead.js';
import type { SessionIndex } from '../../../src/core/index/sessionIndex.js';

const HEADER = '{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';
// A few ids, so that they repeat; ids in pi's shape and others
const IDS = ['0000000a', '0000000b', 'ffffffff', '12345678', '9abcdef0', 'a1b2c3d4', 'x', 'y1'];

const hexIdArb = fc.nat({ max: 0xffffffff }).map((n) => n.toString(16).padStart(8, '0'));

const entryArb = fc.record({
  kind: fc.constantFrom('user', 'user', 'user', 'custom', 'leaf', 'label'),
  id: fc.oneof(fc.constantFrom(...IDS), hexIdArb),
  parent: fc.oneof(fc.constant(null), fc.constant('prev'), fc.constant('self'), fc.constantFrom(...IDS)),
  target: fc.oneof(fc.constant(null), fc.constantFrom(...IDS)),
});

type Entry = { kind: string; id: string; parent: string | null; target: string | null };

// A run of messages in pi's shape, each under the one before (ids queue up without a lookup in between),
// ending now and then with one that repeats an id of the run: the queue fills in the middle of runs.
// (lengths around the queue's 64 land the repeat where the queue fills)
const runLength = fc.oneof(fc.constantFrom(62, 63, 64, 126, 127), fc.integer({ min: 1, max: 150 }));
const runArb = fc
  .record({
    ids: runLength.chain((n) => fc.array(hexIdArb, { minLength: n, maxLength: n })),
    repeat: fc.option(fc.nat(), { nil: undefined }),
  })
  .map(({ ids, repeat }) => {
    const run: Entry[] = ids.map((id) => ({ kind: 'user', id, parent: 'prev', target: null }));
    if (repeat !== undefined) run.push({ kind: 'user', id: ids[repeat % ids.length], parent: 'prev', target: null });
    return run;
  });

function lineOf(e: Entry, prev: string | null): string {
  const parentId = e.parent === 'prev' ? prev : e.parent === 'self' ? e.id : e.parent;
  const timestamp = '2026-01-01T00:00:00.000Z';
  if (e.kind === 'user')
    return JSON.stringify({ type: 'message', id: e.id, parentId, timestamp, message: { role: 'user', content: 'hi' } });
  if (e.kind === 'leaf') return JSON.stringify({ type: 'leaf', id: e.id, parentId, timestamp, targetId: e.target });
  if (e.kind === 'label')
    return JSON.stringify({ type: 'label', id: e.id, parentId, timestamp, targetId: e.target ?? 'x', label: 'l' });
  return JSON.stringify({ type: 'custom', id: e.id, parentId, timestamp });
}

/** What the index says of its records and ids. */
function facts(ix: SessionIndex) {
  const records = Array.from({ length: ix.count }, (_, i) => [ix.idOf(i), ix.isLive(i), ix.up(i), ix.treeParentIdx(i)]);
  return {
    records,
    ids: IDS.map((id) => ix.lookup(id)),
    leaf: ix.leafRecord,
    size: ix.size,
    live: Array.from(ix.liveIdx()),
    diagnostics: ix.diagnostics,
  };
}

describe('ids filed in batches while a session is read', () => {
  it('the same index as entries added one at a time (read as appended lines)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .oneof(
            fc.array(fc.oneof({ arbitrary: entryArb.map((e) => [e]), weight: 6 }, { arbitrary: runArb, weight: 1 }), {
              minLength: 1,
              maxLength: 400,
            }),
            // runs alone: no duplicate before the first repeat, so no lookup puts the queue in early
            fc.array(runArb, { minLength: 1, maxLength: 6 }),
          )
          .map((parts) => parts.flat()),
        async (entries) => {
          let prev: string | null = null;
          const lines: string[] = [];
          for (const e of entries) {
            lines.push(lineOf(e, prev));
            prev = e.id;
          }
          const text = Buffer.from(HEADER + lines.join('\n') + '\n');
          const batched = await readSession(new BufferSource(() => text));
          // readTail adds each entry as it comes (the reader queues ids only for a fresh index)
          const header = Buffer.from(HEADER);
          const oneByOne = await readSession(new BufferSource(() => header));
          await readTail(new BufferSource(() => text), oneByOne);
          assert.deepEqual(facts(batched.index), facts(oneByOne.index));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an entry whose id fills the queue and repeats an earlier one keeps its line in the diagnostic', async () => {
    // (a case the property above reaches only through its runs: a self-parent, a leaf or a parent not on
    // the line before puts the queue in first)
    for (const n of [64, 128, 192]) {
      const lines: string[] = [];
      let prev: string | null = null;
      for (let k = 0; k < n - 1; k++) {
        const id = (0x10000000 + k).toString(16);
        lines.push(
          JSON.stringify({
            type: 'message',
            id,
            parentId: prev,
            timestamp: '2026-01-01T00:00:00.000Z',
            message: { role: 'user', content: `m${k}` },
          }),
        );
        prev = id;
      }
      // the n-th entry (line n + 1) has the id of the 6th (line 7)
      lines.push(
        JSON.stringify({
          type: 'message',
          id: '10000005',
          parentId: prev,
          timestamp: '2026-01-01T00:00:01.000Z',
          message: { role: 'user', content: 'again' },
        }),
      );
      const text = Buffer.from(HEADER + lines.join('\n') + '\n');
      const batched = await readSession(new BufferSource(() => text));
      const dup = batched.index.diagnostics.filter((d) => d.code === 'duplicate-id');
      assert.equal(dup.length, 1);
      assert.equal(dup[0].line, n + 1);
      assert.match(dup[0].message, /first on line 7\b/);
      const header = Buffer.from(HEADER);
      const oneByOne = await readSession(new BufferSource(() => header));
      await readTail(new BufferSource(() => text), oneByOne);
      assert.deepEqual(facts(batched.index), facts(oneByOne.index));
    }
  });
});
