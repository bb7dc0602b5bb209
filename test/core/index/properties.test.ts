// Property-based tests (fast-check): whatever the bytes or the id graph, reading never throws (except
// the clear NotASessionError), never hangs, reports skipped lines by number, and round-trips entries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BufferSource } from '../../../src/core/index/byteSource.js';
import { NotASessionError, readSession } from '../../../src/core/index/reader.js';
import { Session } from '../../../src/core/session/session.js';
import { MemoryStorage } from '../../../src/core/session/storage.js';
import { buildContextFromPath } from '../../../src/core/context/context.js';

const HEADER = '{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';

async function read(bytes: Buffer) {
  try {
    return await readSession(new BufferSource(() => bytes));
  } catch (e) {
    if (e instanceof NotASessionError) return e;
    throw e;
  }
}

const hex8 = () => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 8, maxLength: 8 });
const idArb = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'd', 'e', '__proto__', 'constructor', 'toString', 'hasOwnProperty', ''),
  hex8(),
);
const parentArb = fc.oneof(fc.constant(null), idArb, fc.integer(), fc.constant(undefined));
const typeArb = fc.constantFrom(
  'message',
  'label',
  'leaf',
  'session_info',
  'compaction',
  'branch_summary',
  'custom',
  'weird',
  'session',
);
const entryArb = fc.record(
  {
    type: typeArb,
    id: fc.oneof(idArb, fc.integer()),
    parentId: parentArb,
    timestamp: fc.oneof(fc.constant('2026-01-01T00:00:00.000Z'), fc.string()),
    targetId: fc.oneof(idArb, fc.constant(null)),
    label: fc.string({ maxLength: 5 }),
    firstKeptEntryId: idArb,
    summary: fc.string({ maxLength: 5 }),
    message: fc.record({
      role: fc.constantFrom('user', 'assistant', 'toolResult', 'system', 'x'),
      content: fc.oneof(
        fc.string(),
        fc.constant(null),
        fc.array(fc.record({ type: fc.constant('text'), text: fc.string() })),
      ),
    }),
  },
  { requiredKeys: ['type'] },
);

describe('properties of the reader and index', () => {
  it('any bytes after a header: no throw, diagnostics name lines inside the file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4000 }), async (body) => {
        const bytes = Buffer.concat([Buffer.from(HEADER), Buffer.from(body)]);
        const r = await read(bytes);
        if (r instanceof NotASessionError) return;
        const lines = bytes.toString('latin1').split('\n').length;
        for (const d of r.index.diagnostics)
          if (d.line !== undefined) assert.ok(d.line >= 1 && d.line <= lines, `line ${d.line} of ${lines}`);
      }),
      { numRuns: 300 },
    );
  });

  it('any bytes at all: a session or a NotASessionError, never another exception', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), async (body) => {
        await read(Buffer.from(body));
      }),
      { numRuns: 300 },
    );
  });

  it('any id graph (cycles, self-parents, duplicates, missing parents, odd ids): walks, children and context terminate', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (entries, shuffle) => {
          const lines = entries.map((e) => JSON.stringify(e));
          for (const k of shuffle) if (lines.length > 1) lines.push(lines.splice(k % lines.length, 1)[0]);
          const r = await read(Buffer.from(HEADER + lines.join('\n') + '\n'));
          assert.ok(!(r instanceof Error));
          const idx = r.index;
          // the counts stats takes before any child list is built are the child lists' lengths
          const early = await read(Buffer.from(HEADER + lines.join('\n') + '\n'));
          assert.ok(!(early instanceof Error));
          const counts = early.index.childCounts();
          const diagnostics = early.index.diagnostics.length;
          for (const rec of idx.live()) assert.equal(counts[rec.seq], idx.childrenOf(rec.id).length, rec.id);
          early.index.childCounts();
          assert.equal(early.index.diagnostics.length, diagnostics, 'cycles are reported once');
          const seen = new Set<string>();
          const stack = [...idx.roots()];
          while (stack.length) {
            const rec = stack.pop()!;
            assert.ok(!seen.has(rec.id), 'the tree from roots visits every entry once');
            seen.add(rec.id);
            stack.push(...idx.childrenOf(rec.id));
          }
          assert.equal(seen.size, idx.size, 'nothing is unreachable');
          for (const rec of idx.live()) {
            const path = idx.branch(rec.id);
            assert.ok(path.length <= idx.size);
            assert.equal(path[path.length - 1], rec);
          }
          const s = await Session.fromStorage(new MemoryStorage(HEADER + lines.join('\n') + '\n'));
          const ctx = await s.buildContext();
          assert.ok(Array.isArray(ctx.messages));
          assert.ok(Object.getPrototypeOf(idx.byId) === Map.prototype);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('child counts without child lists: a repeated id, a cycle, a self-parent, a missing parent', async () => {
    const e = (id: string, parentId: string | null) =>
      JSON.stringify({ type: 'custom', id, parentId, timestamp: '2026-01-01T00:00:00.000Z' });
    const text = `${HEADER}${[e('a', null), e('b', 'a'), e('b', 'a'), e('c', 'b'), e('x', 'y'), e('y', 'x'), e('s', 's'), e('m', 'gone'), e('d', 'a')].join('\n')}\n`;
    const early = await read(Buffer.from(text));
    const r = await read(Buffer.from(text));
    assert.ok(!(early instanceof Error) && !(r instanceof Error));
    const counts = early.index.childCounts();
    for (const rec of r.index.live()) assert.equal(counts[rec.seq], r.index.childrenOf(rec.id).length, rec.id);
    assert.equal(counts[r.index.lookup('a')], 2);
  });

  it("siblings in pi's order (a stable sort by time of the file's order), whatever the clock did, read at once or appended", async () => {
    const minute = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 9 })), {
          minLength: 1,
          maxLength: 60,
        }),
        async (kids) => {
          // parents r (a root) and p0..p3 under it; child k under parent kids[k][0] at minute kids[k][1]
          const line = (id: string, parentId: string | null, m: number) =>
            JSON.stringify({ type: 'custom', id, parentId, timestamp: minute(m) });
          const head = [line('r', null, 0), ...[0, 1, 2, 3].map((j) => line(`p${j}`, 'r', 0))];
          const body = kids.map(([p, m], k) => line(`k${k}`, `p${p}`, m));
          const expected = (p: number) =>
            kids
              .map(([q, m], k) => ({ q, m, id: `k${k}` }))
              .filter((x) => x.q === p)
              .sort((a, b) => a.m - b.m)
              .map((x) => x.id);
          const whole = await read(Buffer.from(`${HEADER}${[...head, ...body].join('\n')}\n`));
          assert.ok(!(whole instanceof Error));
          const s = await Session.inMemory(`${HEADER}${head.join('\n')}\n`);
          s.index.childrenOf('r'); // the lists built, then each child linked as it is appended
          for (const l of body) {
            (s.storage as MemoryStorage).data = Buffer.concat([
              (s.storage as MemoryStorage).data,
              Buffer.from(`${l}\n`),
            ]);
            await s.refresh();
          }
          for (const p of [0, 1, 2, 3]) {
            assert.deepEqual(
              whole.index.childrenOf(`p${p}`).map((r) => r.id),
              expected(p),
              `read at once, p${p}`,
            );
            assert.deepEqual(
              s.index.childrenOf(`p${p}`).map((r) => r.id),
              expected(p),
              `appended, p${p}`,
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a parent cycle of 300,000 entries is reported once, and checked again after an append, without a crash', async () => {
    const n = 300_000;
    const id = (k: number) => `c${k.toString(16).padStart(7, '0')}`;
    const lines: string[] = [];
    for (let k = 0; k < n; k++)
      lines.push(
        JSON.stringify({ type: 'custom', id: id(k), parentId: id((k + 1) % n), timestamp: '2026-01-01T00:00:00.000Z' }),
      );
    const s = await Session.inMemory(`${HEADER}${lines.join('\n')}\n`);
    assert.equal(s.index.childrenOf(id(0)).length, 1);
    const cycles = () => s.diagnostics.filter((d) => d.code === 'cycle');
    assert.equal(cycles().length, 1);
    assert.equal(cycles()[0].line, 2, 'named by its first line');
    await s.appendMessage({ role: 'user', content: 'after', timestamp: 1 });
    s.index.childrenOf(id(0));
    assert.equal(cycles().length, 1, 'not reported twice');
  });

  it('valid entries round-trip: what is written is read back equal, unknown fields kept', async () => {
    const valid = fc.record({
      type: fc.constantFrom('message', 'custom', 'future_type'),
      id: hex8(),
      parentId: fc.constant(null),
      timestamp: fc.constant('2026-01-01T00:00:00.000Z'),
      message: fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.string(), extra: fc.jsonValue() }),
      unknownField: fc.jsonValue(),
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(valid, { selector: (e) => e.id, maxLength: 20 }), async (entries) => {
        const text = HEADER + entries.map((e) => JSON.stringify(e) + '\n').join('');
        const s = await Session.fromStorage(new MemoryStorage(text));
        const back = await s.load(s.index.live());
        assert.deepStrictEqual(
          back.map((e) => JSON.stringify(e)),
          entries.map((e) => JSON.stringify(JSON.parse(JSON.stringify(e)))),
        );
        // and one more append keeps every earlier byte
        const storage = s.storage as MemoryStorage;
        await s.setName('x');
        assert.ok(storage.text().startsWith(text));
      }),
      { numRuns: 200 },
    );
  });

  it('context of arbitrary paths never throws', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 30 }), (entries) => {
        const path = entries
          .filter((e) => typeof e.id === 'string')
          .map((e) => ({ ...e, id: String(e.id), parentId: null, timestamp: '2026-01-01T00:00:00.000Z' }));
        buildContextFromPath(path as never);
      }),
      { numRuns: 500 },
    );
  });
});
