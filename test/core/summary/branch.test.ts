// Branch summaries end to end: a real session file, a real loopback OpenAI-compatible server, and
// checks of what was sent (entries, budget, file lists, focus, prompts, model, max tokens) and of the
// exact lines written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OpenAICompatibleModel } from '../../../src/core/models/openaiCompatible.js';
import { Session } from '../../../src/core/session/session.js';
import {
  BRANCH_PROMPT,
  commitBranchSummary,
  planBranchSummary,
  prepareBranchEntries,
  previewBranchSummary,
  summarizeBranch,
  SUMMARY_SYSTEM_PROMPT,
} from '../../../src/core/summary/index.js';
import { completionJson, completionSse, useLoopback } from '../../support/loopbackOpenAI.js';
import { SessionBuilder, words } from '../../support/sessionBuilder.js';

const PREAMBLE =
  'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n';

const lb = useLoopback(() => completionSse('## Goal\nTry approach A', { pieces: 3 }));

const model = (extra: Partial<ConstructorParameters<typeof OpenAICompatibleModel>[0]> = {}) =>
  new OpenAICompatibleModel({
    baseUrl: lb.url,
    model: 'summarizer-1',
    contextWindow: 32000,
    maxOutputTokens: 4096,
    retryBaseMs: 5,
    ...extra,
  });

/** Two branches after a shared start; the leaf is the tip of branch A. */
function twoBranches() {
  const b = new SessionBuilder();
  const ids: Record<string, string> = {};
  ids.u1 = b.user('Set up the project');
  ids.a1 = b.assistant({ text: 'Reading.', calls: [{ name: 'read', args: { path: 'README.md' }, id: 'c1' }] });
  ids.t1 = b.toolResult('c1', 'read', '# readme');
  // branch B (older sibling)
  ids.u3 = b.user('Try approach B');
  ids.a4 = b.assistant({ text: 'B is done' });
  // branch A from t1
  b.at(ids.t1);
  ids.u2 = b.user('Try approach A');
  ids.a2 = b.assistant({
    text: 'Editing.',
    thinking: 'secret reasoning that pi leaves out',
    calls: [
      { name: 'read', args: { path: 'src/b.ts' }, id: 'c2' },
      { name: 'edit', args: { path: 'src/a.ts', oldText: 'x', newText: 'y' }, id: 'c3' },
      { name: 'write', args: { path: 'src/new.ts', content: 'z' }, id: 'c4' },
    ],
  });
  ids.t2 = b.toolResult('c2', 'read', 'export const b = 1;');
  ids.t3 = b.toolResult('c3', 'edit', 'edited');
  ids.t4 = b.toolResult('c4', 'write', 'written');
  ids.lbl = b.label(ids.u2, 'approach-a');
  ids.a3 = b.assistant({ text: 'done A', calls: [{ name: 'read', args: { path: 'src/a.ts' }, id: 'c5' }] });
  ids.t5 = b.toolResult('c5', 'read', 'const a = "y";');
  ids.a5 = b.assistant({ text: 'All good.' });
  return { b, ids };
}

function newLines(path: string, before: string): any[] {
  const now = readFileSync(path, 'utf8');
  assert.ok(now.startsWith(before), 'existing bytes unchanged');
  return now
    .slice(before.length)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('branch summary', () => {
  test('summarizes the branch being left and writes leaf record + branch_summary exactly', async () => {
    const { b, ids } = twoBranches();
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    assert.equal(session.leafId, ids.a5);

    const plan = await planBranchSummary(session, ids.a4);
    assert.equal(plan.commonAncestorId, ids.t1);
    assert.deepEqual(
      plan.entries.map((e) => e.id),
      [ids.u2, ids.a2, ids.t2, ids.t3, ids.t4, ids.lbl, ids.a3, ids.t5, ids.a5],
    );
    assert.equal(readFileSync(file, 'utf8'), original, 'planning writes nothing');

    const draft = await summarizeBranch(plan, model());
    assert.equal(readFileSync(file, 'utf8'), original, 'summarizing writes nothing');
    assert.equal(lb.requests.length, 1);
    const body = lb.requests[0].body;
    assert.equal(body.model, 'summarizer-1');
    assert.equal(body.max_tokens, 4096);
    assert.equal(body.stream, true);
    assert.equal(body.messages[0].role, 'system');
    assert.equal(body.messages[0].content, SUMMARY_SYSTEM_PROMPT);
    const conversation = [
      '[User]: Try approach A',
      '[Assistant]: Editing.',
      '[Assistant tool calls]: read(path="src/b.ts"); edit(path="src/a.ts", oldText="x", newText="y"); write(path="src/new.ts", content="z")',
      '[Assistant]: done A',
      '[Assistant tool calls]: read(path="src/a.ts")',
      '[Assistant]: All good.',
    ].join('\n\n');
    assert.equal(body.messages[1].content, `<conversation>\n${conversation}\n</conversation>\n\n${BRANCH_PROMPT}`);
    assert.doesNotMatch(body.messages[1].content, /secret reasoning|Try approach B|README/);
    for (const h of [
      '## Goal',
      '## Constraints & Preferences',
      '## Progress',
      '### Done',
      '### In Progress',
      '### Blocked',
      '## Key Decisions',
      '## Next Steps',
    ]) {
      assert.ok(BRANCH_PROMPT.includes(`\n${h}\n`), h);
    }

    const result = await commitBranchSummary(session, draft);
    const lines = newLines(file, original);
    assert.equal(lines.length, 2);
    const [leaf, bs] = lines;
    assert.deepEqual(Object.keys(leaf), ['type', 'id', 'parentId', 'timestamp', 'targetId', 'fromId']);
    assert.deepEqual(
      { ...leaf, id: 'X', timestamp: 'T' },
      { type: 'leaf', id: 'X', parentId: ids.a4, timestamp: 'T', targetId: ids.a4, fromId: ids.a5 },
    );
    assert.deepEqual(Object.keys(bs), [
      'type',
      'id',
      'parentId',
      'timestamp',
      'fromId',
      'summary',
      'details',
      'usage',
      'fromHook',
    ]);
    assert.match(bs.id, /^[0-9a-f]{8}$/);
    assert.equal(bs.id, result.summaryId);
    assert.equal(bs.parentId, ids.a4);
    assert.equal(bs.fromId, ids.a5);
    assert.match(bs.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(
      bs.summary,
      `${PREAMBLE}## Goal\nTry approach A\n\n<read-files>\nsrc/b.ts\n</read-files>\n\n<modified-files>\nsrc/a.ts\nsrc/new.ts\n</modified-files>`,
    );
    assert.deepEqual(bs.details, { readFiles: ['src/b.ts'], modifiedFiles: ['src/a.ts', 'src/new.ts'] });
    assert.deepEqual(bs.usage, {
      input: 1000,
      output: 80,
      cacheRead: 200,
      cacheWrite: 0,
      reasoning: 0,
      totalTokens: 1280,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, totalFromProvider: false },
    });
    assert.equal(bs.fromHook, false);

    // The session now sits on the summary, and its context ends with the summary in place.
    const reopened = await Session.open(file);
    assert.equal(reopened.leafId, bs.id);
    const ctx = await reopened.buildContext();
    assert.deepEqual(
      ctx.messages.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'user', 'assistant', 'branchSummary'],
    );
  });

  test('the user focus is appended; replaceInstructions uses it alone', async () => {
    const { b, ids } = twoBranches();
    const session = await Session.open(b.write());
    const plan = await planBranchSummary(session, ids.a4);
    await summarizeBranch(plan, model(), { focus: 'Only the file changes' });
    assert.ok(
      lb.requests[0].body.messages[1].content.endsWith(`${BRANCH_PROMPT}\n\nAdditional focus: Only the file changes`),
    );
    await summarizeBranch(plan, model(), { focus: 'Just list files', replaceInstructions: true });
    assert.ok(lb.requests[1].body.messages[1].content.endsWith('</conversation>\n\nJust list files'));
  });

  test('the budget (context window − reserve) keeps the newest messages', async () => {
    const b = new SessionBuilder();
    const root = b.user('start');
    const other = b.assistant({ text: 'elsewhere' });
    b.at(root);
    const texts: string[] = [];
    for (let i = 0; i < 6; i++) {
      texts.push(`Q${i} ${words(395, i)}`);
      b.user(texts[texts.length - 1]);
      texts.push(`A${i} ${words(395, i + 50)}`);
      b.assistant({ text: texts[texts.length - 1] });
    }
    const session = await Session.open(b.write());
    const plan = await planBranchSummary(session, other);
    assert.equal(plan.entries.length, 12);
    // Each message is 100 tokens: a budget of 450 takes the newest four.
    const m = model({ contextWindow: 16384 + 450 });
    const preview = previewBranchSummary(plan, { contextWindow: m.contextWindow });
    assert.equal(preview.tokenBudget, 450);
    assert.equal(preview.totalTokens, 400);
    assert.equal(preview.entryIds.length, 4);
    assert.equal(preview.droppedEntries, 8);
    await summarizeBranch(plan, m);
    const sent = lb.requests[0].body.messages[1].content as string;
    const kept = texts.slice(-4);
    for (const t of kept) assert.ok(sent.includes(t.slice(0, 60)), t.slice(0, 10));
    for (const t of texts.slice(0, -4)) assert.ok(!sent.includes(t.slice(0, 60)), `${t.slice(0, 10)} must be cut`);
    assert.ok(sent.indexOf(kept[0].slice(0, 60)) < sent.indexOf(kept[3].slice(0, 60)), 'chronological order');
    // A model without a context window gets pi's 128000; reserveTokens is a setting too.
    assert.equal(previewBranchSummary(plan, { contextWindow: 0 }).tokenBudget, 128000 - 16384);
    assert.equal(
      previewBranchSummary(plan, { contextWindow: 16384 + 450, reserveTokens: 16384 - 300 }).entryIds.length,
      7,
    );
  });

  test('an older summary still goes in below 90 % of the budget; file lists come from every pi-made summary', () => {
    const b = new SessionBuilder();
    const entries = [
      b.branchSummary('zzzzzzzz', 'S'.repeat(1200), {
        details: { readFiles: ['old/read.ts'], modifiedFiles: ['old/mod.ts'] },
        fromHook: false,
      }),
      b.branchSummary('zzzzzzzz', 'hook summary', {
        details: { readFiles: ['hook/read.ts'], modifiedFiles: [] },
        fromHook: true,
      }),
      b.user('U'.repeat(400)),
      b.assistant({ text: 'A'.repeat(400) }),
    ].map((id) => b.entries.find((e) => e.id === id)) as any[];
    // hook summary: 3 tokens; newest two messages: 200 tokens; the 300-token summary is over budget.
    const fits = prepareBranchEntries(entries, 250); // 203 < 225 ⇒ still prepended
    assert.deepEqual(
      fits.entryIds,
      entries.map((e) => e.id),
    );
    const cut = prepareBranchEntries(entries, 220); // 203 ≥ 198 ⇒ left out
    assert.deepEqual(
      cut.entryIds,
      entries.slice(1).map((e) => e.id),
    );
    assert.deepEqual([...cut.fileOps.read], ['old/read.ts']);
    assert.deepEqual([...cut.fileOps.edited], ['old/mod.ts']);
  });

  test('a long branch is read only as far as the budget can reach; the result is the same', async () => {
    const b = new SessionBuilder();
    const root = b.user('root');
    const target = b.assistant({ text: 'target' });
    b.at(root);
    b.branchSummary('zzzzzzzz', 'early', {
      details: { readFiles: ['early/read.md'], modifiedFiles: ['early/mod.ts'] },
      fromHook: false,
    });
    for (let i = 0; i < 1500; i++) {
      b.user(words(200, i));
      b.assistant({ text: words(600, i), calls: [{ name: 'read', args: { path: `f${i}.ts` }, id: `c${i}` }] });
      b.toolResult(`c${i}`, 'read', words(300, i));
    }
    const session = await Session.open(b.write());
    const full = await planBranchSummary(session, target, { tokenCap: Infinity });
    assert.equal(full.entries.length, 4501);
    assert.equal(full.tokenCap, Infinity);
    const part = await planBranchSummary(session, target, { tokenCap: 20000 });
    assert.equal(part.totalEntries, 4501);
    assert.ok(part.entries.length <= 1025, `loaded ${part.entries.length}`); // one chunk of 1024 + the early summary
    assert.equal(part.entries[0].type, 'branch_summary', 'older summaries are kept for their file lists');
    for (const budget of [1, 500, 5000, 19999, 20000]) {
      const a = prepareBranchEntries(full.entries, budget);
      const p = prepareBranchEntries(part.entries, budget);
      assert.deepEqual(p.messages, a.messages, `budget ${budget}`);
      assert.equal(p.totalTokens, a.totalTokens);
      assert.deepEqual(p.fileOps, a.fileOps);
      assert.ok(a.fileOps.read.has('early/read.md'));
    }
    assert.throws(() => previewBranchSummary(part, { contextWindow: 16384 + 20001 }), /covers budgets up to 20000/);
    assert.equal(previewBranchSummary(part, { contextWindow: 16384 + 20000 }).nothingLeft, false);
    await assert.rejects(summarizeBranch(part, model({ contextWindow: 1000 })), /leaves no room after reserving 16384/);
  });

  test('entries without conversation give pi\'s "No content to summarize" without a model call', async () => {
    const b = new SessionBuilder();
    const u = b.user('hello');
    const target = b.assistant({ text: 'hi' });
    b.at(u);
    b.modelChange('x');
    b.thinking('high');
    b.label(u, 'tag');
    b.custom();
    b.toolResult('c9', 'read', 'orphan result');
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    const plan = await planBranchSummary(session, target);
    assert.equal(plan.entries.length, 5);
    assert.equal(previewBranchSummary(plan, { contextWindow: 0 }).noContent, true);
    const draft = await summarizeBranch(plan, model());
    assert.equal(lb.requests.length, 0);
    await commitBranchSummary(session, draft);
    const [, bs] = newLines(file, original);
    assert.deepEqual(Object.keys(bs), [
      'type',
      'id',
      'parentId',
      'timestamp',
      'fromId',
      'summary',
      'details',
      'fromHook',
    ]);
    assert.equal(bs.summary, 'No content to summarize');
    assert.deepEqual(bs.details, { readFiles: [], modifiedFiles: [] });
    assert.equal(bs.fromHook, false);
  });

  test('moving forward leaves nothing behind: only the leaf record, no model call', async () => {
    const b = new SessionBuilder();
    const u = b.user('hello');
    const a = b.assistant({ text: 'hi' });
    b.at(u);
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    assert.equal(session.leafId, a, 'leaf = last line');
    // Move to u (an ancestor of the leaf): a is left behind.
    const plan = await planBranchSummary(session, u);
    assert.deepEqual(
      plan.entries.map((e) => e.id),
      [a],
    );
    // Now the other direction: from u's position to a.
    await session.moveTo(u);
    const base = readFileSync(file, 'utf8');
    const fwd = await planBranchSummary(session, a);
    assert.equal(fwd.entries.length, 0);
    const draft = await summarizeBranch(fwd, model());
    assert.equal(draft.summary, undefined);
    assert.equal(lb.requests.length, 0);
    await commitBranchSummary(session, draft);
    const lines = newLines(file, base);
    assert.deepEqual(
      lines.map((l) => l.type),
      ['leaf'],
    );
    assert.ok(original.length < base.length);
  });

  test("pi's user-message rule: collect against the message, move to its parent", async () => {
    const { b, ids } = twoBranches();
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    // Selecting u3 (a user message) in pi moves the leaf to its parent t1 and summarizes A.
    const plan = await planBranchSummary(session, ids.u3, { newLeafId: ids.t1 });
    assert.equal(plan.commonAncestorId, ids.t1);
    lb.setHandler(() => completionJson('sum'));
    await commitBranchSummary(session, await summarizeBranch(plan, model()));
    const [leaf, bs] = newLines(file, original);
    assert.equal(leaf.targetId, ids.t1);
    assert.equal(bs.parentId, ids.t1);
    assert.equal(bs.fromId, ids.a5);
  });

  test('commit refuses when the session moved on meanwhile', async () => {
    const { b, ids } = twoBranches();
    const file = b.write();
    const session = await Session.open(file);
    const plan = await planBranchSummary(session, ids.a4);
    const draft = await summarizeBranch(plan, model());
    // Another writer (pi) appends a message.
    const other = await Session.open(file);
    await other.appendMessage({ role: 'user', content: [{ type: 'text', text: 'more' }], timestamp: 1 });
    const before = readFileSync(file, 'utf8');
    await assert.rejects(commitBranchSummary(session, draft), /session changed.*nothing was written/);
    assert.equal(readFileSync(file, 'utf8'), before);
  });
});
