// The store's caps hold while a session runs, not only when it starts (storeCaps.ts): many turns that
// each add a snapshot's worth under a small cap keep the lines' accounting, and the store's size after
// the collect, within the cap plus one snapshot. And pruning leaves alone a manifest another pi may be
// appending to (written to lately, or grown since it was read).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ManifestLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { pruneStore } from '../../../../src/core/checkpoints/store/retention.js';
import { CheckpointStore } from '../../../../src/core/checkpoints/store/store.js';
import { DEFAULT_SETTINGS, type CheckpointSettings } from '../../../../src/core/checkpoints/store/storePaths.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';
import { until } from '../../../../scripts/lib/until.js';

const TURN_BYTES = 100_000;
const CAP = 350_000;

function setup() {
  const root = tempDir('pi-cp-caps-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, 'README.md'), 'readme\n');
  return { root, cwd, agentDir, sessions };
}

const bytesOf = (lines: ManifestLine[]) => lines.reduce((a, l) => a + (l.kind === 'off' ? 0 : (l.bytes ?? 0)), 0);

describe('the caps during a session', () => {
  const caps: [string, Partial<CheckpointSettings>][] = [
    ["the session's cap", { maxSessionBytes: CAP, maxTotalBytes: 0 }],
    ['the total cap', { maxSessionBytes: 0, maxTotalBytes: CAP }],
  ];
  for (const [what, settings] of caps) {
    it(`${what} holds turn by turn: the lines' accounting and the store after its collect stay within the cap plus one snapshot`, async () => {
      const d = setup();
      const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: false, settings, pruneGraceMs: 0 });
      const store = await CheckpointStore.open(d.agentDir, d.cwd, DEFAULT_SETTINGS);
      const id = String(sim.b.header.id);
      let largest = 0;
      const sizes: number[] = [];
      for (let i = 0; i < 16; i++) {
        // a file of incompressible bytes rewritten each turn: every 'after' adds ~100 KB
        await sim.turn(`turn ${i}`, [{ name: 'bash', args: { command: 'make data' } }], () =>
          writeFileSync(join(d.cwd, 'data.bin'), randomBytes(TURN_BYTES)),
        );
        const lines = store.manifest(id);
        largest = Math.max(largest, ...lines.map((l) => (l.kind === 'off' ? 0 : (l.bytes ?? 0))));
        assert.ok(
          bytesOf(lines) <= CAP + largest,
          `turn ${i}: ${bytesOf(lines)} bytes counted, cap ${CAP} + ${largest}`,
        );
        sizes.push(await store.sizeBytes());
      }
      assert.deepEqual(sim.notified, []);
      assert.ok(largest >= TURN_BYTES && largest < 2 * TURN_BYTES, `a turn adds about ${TURN_BYTES} bytes: ${largest}`);
      assert.ok(store.manifest(id).length < 12, 'old snapshots were dropped');
      // (count-objects rounds up to KiB, and a pack has its own header and index: a few KiB on top)
      const slack = 32 * 1024;
      for (const [i, size] of sizes.entries())
        assert.ok(size <= CAP + largest + slack, `after turn ${i} the store takes ${size} bytes`);
    });
  }
});

describe('the caps after the prune grace', () => {
  it('what a collect kept for being young is collected once the grace passed, while the session stays open', async () => {
    const d = setup();
    // A grace longer than the turns take, so that the dropped snapshots are all still young at their collect.
    const graceMs = 20_000;
    const settings = { maxSessionBytes: CAP, maxTotalBytes: 0 };
    const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions, watch: false, settings, pruneGraceMs: graceMs });
    const store = await CheckpointStore.open(d.agentDir, d.cwd, DEFAULT_SETTINGS);
    const id = String(sim.b.header.id);
    const t0 = Date.now();
    for (let i = 0; i < 8; i++)
      await sim.turn(`turn ${i}`, [{ name: 'bash', args: { command: 'make data' } }], () =>
        writeFileSync(join(d.cwd, 'data.bin'), randomBytes(TURN_BYTES)),
      );
    const took = Date.now() - t0;
    const largest = Math.max(...store.manifest(id).map((l) => (l.kind === 'off' ? 0 : (l.bytes ?? 0))));
    const bound = CAP + largest + 32 * 1024;
    assert.ok(took < graceMs, `the turns took ${took} ms, less than the grace: their drops are kept at first`);
    const before = await store.sizeBytes();
    assert.ok(before > bound, `the young drops are still in the store: ${before} bytes against ${bound}`);
    // No turn, no drop from now on: the follow-up collect alone brings the store back within the cap.
    const after = await until(
      async () => {
        const n = await store.sizeBytes();
        return n <= bound && n;
      },
      graceMs + 40_000,
      () => `the store back within ${bound} bytes`,
      500,
    );
    assert.ok(after <= bound);
    await sim.capture?.close();
  });
});

describe('pruning beside a live pi', () => {
  it("another session's manifest written to lately is not rewritten; one read before a line was appended is not either", async () => {
    const d = setup();
    const other = new SimPi(d.cwd, d.agentDir, {
      sessionDir: d.sessions,
      watch: false,
      id: '019b8f3a-0000-7000-8000-0000000000c1',
    });
    for (let i = 0; i < 3; i++)
      await other.turn(`t${i}`, [{ name: 'bash', args: { command: 'make' } }], () =>
        writeFileSync(join(d.cwd, 'data.bin'), randomBytes(50_000)),
      );
    const store = await CheckpointStore.open(d.agentDir, d.cwd, DEFAULT_SETTINGS);
    const otherId = String(other.b.header.id);
    const file = store.manifestFile(otherId);
    const text = readFileSync(file, 'utf8');
    const tight = { ...DEFAULT_SETTINGS, maxSessionBytes: 60_000 };

    // Written to a moment ago (its pi may append now): left alone, whoever prunes.
    const r = await pruneStore(store, tight, { own: '019b8f3a-0000-7000-8000-0000000000c2' });
    assert.equal(r.dropped, 0);
    assert.equal(readFileSync(file, 'utf8'), text);

    // Quiet for a while: pruned.
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(file, old, old);
    const r2 = await pruneStore(store, tight, { own: '019b8f3a-0000-7000-8000-0000000000c2' });
    assert.ok(r2.dropped > 0);
    assert.ok(readFileSync(file, 'utf8').length < text.length);

    // A line appended after the lines were read: the rewrite gives way instead of losing it.
    const lines = store.manifest(otherId);
    const size = readFileSync(file).length;
    appendFileSync(
      file,
      `${JSON.stringify({ v: 1, kind: 'off', at: new Date().toISOString(), reason: 'appended meanwhile' })}\n`,
    );
    assert.equal(store.rewriteManifest(otherId, lines.slice(-1), { size }), false);
    assert.match(readFileSync(file, 'utf8'), /appended meanwhile/);
    assert.equal(store.manifest(otherId).length, lines.length + 1);
  });
});
