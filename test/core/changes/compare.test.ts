// Comparing two nodes: the common ancestor within a file and across a fork, turns aligned by position
// (the entries before the first user message on their own row), turn views, and a branch as Markdown.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import {
  alignTurns,
  pathOf,
  recordsOf,
  splitPaths,
  summarizeSide,
  turnsOf,
  turnViews,
} from '../../../src/core/changes/compare.js';
import { entriesMarkdown, exportBranch } from '../../../src/core/changes/exportMarkdown.js';
import { fence } from '../../../src/core/changes/markdownText.js';
import { attachPoint, familyOf } from '../../../src/core/listing/family.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionInfoCache } from '../../../src/core/listing/sessionInfo.js';
import { SessionBuilder, usageOf } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';

/** root: u1 a1 | A: u2 a2 (edit) r2 u3 a3 | B: bs u4 a4 (write) r4 */
function branched() {
  const b = new SessionBuilder();
  b.user('first question');
  const a1 = b.assistant({ text: 'first answer', usage: usageOf(10, 1) });
  b.user('side A asks');
  b.assistant({
    text: 'A works',
    calls: [{ name: 'edit', args: { path: 'src/a.ts', oldText: 'x', newText: 'y' }, id: 'ea' }],
    usage: usageOf(20, 2),
  });
  b.toolResult('ea', 'edit', 'ok');
  b.user('side A again');
  const tipA = b.assistant({ text: 'A done', usage: usageOf(30, 3) });
  b.at(a1);
  b.branchSummary(tipA, 'left A');
  b.user('side B asks');
  b.assistant({
    calls: [{ name: 'write', args: { path: 'src/b.ts', content: 'b' }, id: 'wb' }],
    usage: usageOf(40, 4),
  });
  const tipB = b.toolResult('wb', 'write', 'ok');
  return { b, a1, tipA, tipB };
}

describe('compare two nodes', () => {
  it('common ancestor, the sides after it, and turns aligned with the prelude on its own row', async () => {
    const { b, a1, tipA, tipB } = branched();
    const s = await Session.open(b.write());
    const split = splitPaths(s, pathOf(s, tipA), s, pathOf(s, tipB));
    assert.equal(split.ancestorId, a1);
    assert.equal(split.common, 2);
    assert.deepEqual(
      recordsOf(s, split.a).map((r) => r.role ?? r.type),
      ['user', 'assistant', 'toolResult', 'user', 'assistant'],
    );
    assert.deepEqual(
      recordsOf(s, split.b).map((r) => r.role ?? r.type),
      ['branch_summary', 'user', 'assistant', 'toolResult'],
    );
    const ta = turnsOf(s, split.a);
    const tb = turnsOf(s, split.b);
    assert.deepEqual(
      ta.map((t) => [t.start, t.end, !!t.userId]),
      [
        [0, 3, true],
        [3, 5, true],
      ],
    );
    assert.deepEqual(
      tb.map((t) => [t.start, t.end, !!t.userId]),
      [
        [0, 1, false],
        [1, 4, true],
      ],
    );
    const rows = alignTurns(ta, tb);
    assert.deepEqual(
      rows.map((r) => [r.a?.start ?? null, r.b?.start ?? null]),
      [
        [null, 0],
        [0, 1],
        [3, null],
      ],
    );
    const views = await turnViews(s, split.a, ta, 0, 2);
    assert.equal(views[0].user, 'side A asks');
    assert.deepEqual(views[0].items[0].calls, ['[edit: src/a.ts]']);
    assert.equal(views[0].items[1].text, '[edit: src/a.ts]', 'a tool result reads as its call');
    const sa = await summarizeSide(s, split.a, s.index.get(a1)!.time);
    const sb = await summarizeSide(s, split.b, s.index.get(a1)!.time);
    assert.deepEqual(sa.files, ['src/a.ts']);
    assert.deepEqual(sb.files, ['src/b.ts']);
    assert.deepEqual(
      [sa.totals.turns, sa.totals.messages, sa.totals.tokens.input, sa.totals.tokens.output],
      [2, 5, 50, 5],
    );
    assert.deepEqual([sb.totals.turns, sb.totals.messages, sb.totals.tokens.input, sb.totals.toolCalls], [1, 3, 40, 1]);
    assert.equal(sa.totals.wallMs, s.index.timeOf(split.a[split.a.length - 1]) - s.index.get(a1)!.time);
  });

  it('a node and its own ancestor: one side is empty', async () => {
    const { b, a1, tipA } = branched();
    const s = await Session.open(b.write());
    const split = splitPaths(s, pathOf(s, a1), s, pathOf(s, tipA));
    assert.equal(split.ancestorId, a1);
    assert.equal(split.a.length, 0);
    assert.equal(alignTurns(turnsOf(s, split.a), turnsOf(s, split.b)).length, 2);
    assert.throws(() => pathOf(s, 'nope'), /Entry nope not found/);
  });

  it('across a fork: the copied path is the common part, and the family links find each other', async () => {
    const { b, tipA } = branched();
    const file = b.write(tempDir('pi-family-'));
    const s = await Session.open(file);
    const repo = new SessionRepository({ env: {} });
    // a clone of side A, continued (pi-tree writes it as pi's createBranchedSession does)
    const askA = s.index.branch(tipA)[2].id;
    const cloneFile = await repo.clone(s, askA);
    const clone = await Session.open(cloneFile);
    const more = await clone.appendMessage({
      role: 'user',
      content: [{ type: 'text', text: 'in the clone' }],
      timestamp: Date.now(),
    });
    const split = splitPaths(s, pathOf(s, tipA), clone, pathOf(clone, more));
    assert.equal(split.ancestorId, askA);
    assert.deepEqual(
      recordsOf(clone, split.b).map((r) => r.id),
      [more],
    );
    assert.equal(await attachPoint(s.index, clone.index), askA);
    const here = { listsFolder: (d: string) => d === dirname(file) };
    const fam = await familyOf(file, undefined, new SessionInfoCache(), [], undefined, here);
    assert.deepEqual(
      fam.children.map((c) => c.path),
      [cloneFile],
    );
    const back = await familyOf(
      cloneFile,
      String(clone.header.parentSession),
      new SessionInfoCache(),
      [],
      undefined,
      here,
    );
    assert.equal(back.parent?.path, file);
    // a fork before the first message shares nothing
    const first = s.index.branch(tipA)[0].id;
    const empty = await Session.open((await repo.fork(s, first)).file);
    assert.equal(await attachPoint(s.index, empty.index), null);
  });

  it('ids that are not pi’s 8 hex digits split the same (compared as strings), and never equal a hex id', async () => {
    const { b, a1, tipA, tipB } = branched();
    const hexFile = b.write();
    const hex = await Session.open(hexFile);
    // the same tree with every id renamed to a longer string (as older or other writers do)
    const text = readFileSync(hexFile, 'utf8').replace(/"(id|parentId|fromId)":"([0-9a-f]{8})"/g, '"$1":"entry-$2"');
    const dir = tempDir('pi-tree-strids-');
    writeFileSync(join(dir, 'strings.jsonl'), text);
    const str = await Session.open(join(dir, 'strings.jsonl'));
    const split = splitPaths(str, pathOf(str, `entry-${tipA}`), str, pathOf(str, `entry-${tipB}`));
    assert.equal(split.ancestorId, `entry-${a1}`);
    assert.equal(split.common, 2);
    assert.deepEqual([split.a.length, split.b.length], [5, 4]);
    // across the two files nothing is shared: a hex id is never the same as a string id
    const across = splitPaths(hex, pathOf(hex, tipA), str, pathOf(str, `entry-${tipB}`));
    assert.equal(across.ancestorId, null);
    assert.equal(across.common, 0);
  });
});

describe('a branch as Markdown', () => {
  it('messages in order, tool calls folded with their results, summaries quoted, fences that hold backticks', async () => {
    const { b, tipB } = branched();
    b.at(tipB);
    b.assistant({ text: 'Use ``` fences like this: ```js', usage: usageOf(1, 1) });
    const s = await Session.open(b.write());
    let md = '';
    const r = await exportBranch(s, b.leaf!, (x) => (md += x), { exportedAt: new Date('2026-01-01T00:00:00Z') });
    assert.equal(r.entries, s.index.branch(b.leaf!).length);
    assert.match(
      md,
      /^# pi session\n\n> Branch of pi session `[^`]+` from the root to `[0-9a-z]+`: 7 entries\. Exported by pi-tree on 2026-01-01\.\n/,
    );
    const order = [
      '## User',
      'first question',
      '## Assistant (test-model)',
      'first answer',
      '> **Branch summary**',
      '> left A',
      'side B asks',
      '<details><summary>write: src/b.ts</summary>',
      'Result:',
      '</details>',
    ];
    let at = 0;
    for (const part of order) {
      const i = md.indexOf(part, at);
      assert.ok(i >= at, `${part} after position ${at}`);
      at = i;
    }
    assert.ok(!md.includes('side A asks'), 'only the branch');
    assert.equal(fence('a ```` b'), '`````\na ```` b\n`````\n');
    const turn = entriesMarkdown((await s.getBranch(tipB)).slice(-2));
    assert.match(
      turn,
      /<details><summary>write: src\/b\.ts<\/summary>\n\n```\nb\n```\n\nResult:\n\n```\nok\n```\n\n<\/details>/,
    );
  });
});
