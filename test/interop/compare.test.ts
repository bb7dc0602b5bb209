// `compare` against pi itself, on sessions pi wrote: the real fixtures (migrated and branched by pi's own
// SessionManager) and a generated session with many branches. The common ancestor and each side's ids
// come from pi's getBranch(); each side's totals from pi's own getSessionStats() run over that side's
// entries; the files from the edit/write calls in pi's entries. Checked in-process and through the CLI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  alignTurns,
  pathOf,
  recordsOf,
  splitPaths,
  summarizeSide,
  turnsOf,
  turnViews,
} from '../../src/core/changes/compare.js';
import { Session } from '../../src/core/session/session.js';
import { generateSession } from '../support/generate.js';
import { loadPi } from '../support/pi.js';
import { tempDir } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const FIXTURES = join(__dirname, '..', 'fixtures', 'real');
type Entry = { id: string; type: string; message?: { role: string; content?: unknown } };

/** What pi says about one side: its entries after the common ancestor, their stats, the files edited. */
async function piSide(sm: any, leaf: string, other: string) {
  const { AgentSession } = await loadPi();
  const mine: Entry[] = sm.getBranch(leaf);
  const theirs: Entry[] = sm.getBranch(other);
  let n = 0;
  while (n < Math.min(mine.length, theirs.length) && mine[n].id === theirs[n].id) n++;
  const side = mine.slice(n);
  const stats = AgentSession.prototype.getSessionStats.call({
    sessionManager: { getEntries: () => side },
    sessionFile: '',
    sessionId: '',
    getContextUsage: () => undefined,
  });
  const files: string[] = [];
  for (const e of side) {
    if (e.type !== 'message' || e.message?.role !== 'assistant' || !Array.isArray(e.message.content)) continue;
    for (const b of e.message.content as { type: string; name: string; arguments: { path?: string } }[]) {
      if (
        b.type === 'toolCall' &&
        (b.name === 'edit' || b.name === 'write') &&
        b.arguments?.path &&
        !files.includes(b.arguments.path)
      )
        files.push(b.arguments.path);
    }
  }
  // the user messages that open the side's turns, as pi's /tree shows them (one line)
  const users = side
    .filter((e) => e.type === 'message' && e.message?.role === 'user')
    .map((e) =>
      textOf(e.message!.content)
        .slice(0, 200)
        .replace(/[\n\t]/g, ' ')
        .trim(),
    );
  return {
    ancestorId: n ? mine[n - 1].id : null,
    ids: side.map((e) => e.id),
    stats,
    files,
    users,
    prelude: side.length > 0 && !(side[0].type === 'message' && side[0].message?.role === 'user'),
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content
        .filter((c) => c?.type === 'text')
        .map((c) => String(c.text))
        .join('')
    : '';
}

async function check(file: string, a: string, b: string, sm: any) {
  const pa = await piSide(sm, a, b);
  const pb = await piSide(sm, b, a);
  const s = await Session.open(file);
  const split = splitPaths(s, pathOf(s, a), s, pathOf(s, b));
  assert.equal(split.ancestorId, pa.ancestorId);
  assert.deepEqual(
    recordsOf(s, split.a).map((r) => r.id),
    pa.ids,
  );
  assert.deepEqual(
    recordsOf(s, split.b).map((r) => r.id),
    pb.ids,
  );
  for (const [recs, pi] of [
    [split.a, pa],
    [split.b, pb],
  ] as const) {
    const ours = await summarizeSide(s, recs, undefined);
    assert.deepEqual(ours.totals.tokens, pi.stats.tokens);
    assert.equal(ours.totals.cost, pi.stats.cost);
    assert.equal(ours.totals.messages, pi.stats.totalMessages);
    assert.equal(ours.totals.userMessages, pi.stats.userMessages);
    assert.equal(ours.totals.assistantMessages, pi.stats.assistantMessages);
    assert.equal(ours.totals.toolCalls, pi.stats.toolCalls);
    assert.equal(ours.totals.toolResults, pi.stats.toolResults);
    assert.deepEqual(ours.files, pi.files);
  }
  // turns aligned: a prelude row when either side starts without a user message, then user turn k beside user turn k
  const ta = turnsOf(s, split.a);
  const tb = turnsOf(s, split.b);
  const rows = alignTurns(ta, tb);
  const pre = pa.prelude || pb.prelude ? 1 : 0;
  assert.equal(rows.length, pre + Math.max(pa.users.length, pb.users.length));
  const va = await turnViews(s, split.a, ta, 0, Math.min(ta.length, 40));
  const vb = await turnViews(s, split.b, tb, 0, Math.min(tb.length, 40));
  for (let k = pre; k < Math.min(rows.length, 30); k++) {
    const [ra, rb] = [rows[k].a, rows[k].b];
    assert.equal(ra ? va[ta.indexOf(ra)].user : undefined, pa.users[k - pre], `row ${k} side A`);
    assert.equal(rb ? vb[tb.indexOf(rb)]?.user : undefined, pb.users[k - pre], `row ${k} side B`);
  }
  // the CLI's contract
  const r = spawnSync(process.execPath, [CLI, 'compare', file, a, b, '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.ancestorId, pa.ancestorId);
  assert.deepEqual(out.a.ids, pa.ids);
  assert.deepEqual(out.b.files, pb.files);
  assert.deepEqual(out.b.totals.tokens, pb.stats.tokens);
  assert.equal(out.a.totals.cost, pa.stats.cost);
  return { pa, pb };
}

describe('compare equals pi on pi-written sessions', () => {
  for (const fixture of ['pi-mono-before-compaction.jsonl', 'pi-mono-large-session.v1.jsonl']) {
    it(`${fixture}, branched by pi's SessionManager`, async () => {
      const { SessionManager } = await loadPi();
      const file = join(tempDir('pi-compare-'), 'session.jsonl');
      copyFileSync(join(FIXTURES, fixture), file);
      // pi migrates the v1 file as it opens it; then it branches off the middle of the real path
      const sm = SessionManager.open(file);
      const leafA: string = sm.getLeafId();
      const path: Entry[] = sm.getBranch(leafA);
      const mid = path[Math.floor(path.length / 2)].id;
      sm.branch(mid);
      const t = Date.now();
      sm.appendMessage({ role: 'user', content: [{ type: 'text', text: 'Try another way' }], timestamp: t });
      sm.appendMessage({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Editing.' },
          {
            type: 'toolCall',
            id: 'x1',
            name: 'edit',
            arguments: { path: 'packages/ai/src/other.ts', edits: [{ oldText: 'a', newText: 'b' }] },
          },
          { type: 'toolCall', id: 'x2', name: 'write', arguments: { path: 'NOTES.md', content: 'notes' } },
        ],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-opus-4-5',
        usage: {
          input: 1234,
          output: 56,
          cacheRead: 7,
          cacheWrite: 8,
          totalTokens: 1305,
          cost: { input: 0.01, output: 0.02, cacheRead: 0.001, cacheWrite: 0.002, total: 0.033 },
        },
        stopReason: 'toolUse',
        timestamp: t + 1,
      });
      sm.appendMessage({
        role: 'toolResult',
        toolCallId: 'x1',
        toolName: 'edit',
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
        timestamp: t + 2,
      });
      sm.appendMessage({
        role: 'toolResult',
        toolCallId: 'x2',
        toolName: 'write',
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
        timestamp: t + 3,
      });
      const leafB: string = sm.getLeafId();
      const { pa, pb } = await check(file, leafA, leafB, sm);
      assert.equal(pa.ancestorId, mid);
      assert.ok(pa.ids.length > 100, `the real side has ${pa.ids.length} entries`);
      assert.ok(pa.files.length > 0, 'the real side edited files');
      assert.deepEqual(pb.files, ['packages/ai/src/other.ts', 'NOTES.md']);
      assert.ok(pa.stats.cost > 0 && pb.stats.cost === 0.033);
    });
  }

  it('a generated session with many branches: two tips far apart', async () => {
    const { SessionManager } = await loadPi();
    const g = generateSession({ seed: 77, entries: 3000, branchRate: 0.05, compactions: 1 });
    const file = join(tempDir('pi-compare-gen-'), 'session.jsonl');
    writeFileSync(file, g.text);
    const sm = SessionManager.open(file);
    const s = await Session.open(file);
    const tips = s.index.live().filter((r) => s.index.childrenOf(r.id).length === 0 && r.type === 'message');
    assert.ok(tips.length > 5);
    await check(file, tips[1].id, tips[tips.length - 1].id, sm);
  });
});
