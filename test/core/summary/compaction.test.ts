// Compaction end to end: cut point, split turns, incremental update, file lists, the system message
// replay, what is sent to a real loopback endpoint, and the exact compaction line written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OpenAICompatibleModel } from '../../../src/core/models/openaiCompatible.js';
import { Session } from '../../../src/core/session/session.js';
import {
  COMPACTION_PROMPT,
  COMPACTION_UPDATE_PROMPT,
  commitCompaction,
  planCompaction,
  prepareCompaction,
  previewCompaction,
  summarizeCompaction,
  SUMMARY_SYSTEM_PROMPT,
  TURN_PREFIX_PROMPT,
} from '../../../src/core/summary/index.js';
import { completionJson, useLoopback } from '../../support/loopbackOpenAI.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';

const lb = useLoopback((_r, n) =>
  completionJson(`SUMMARY ${n}`, {
    usage: { prompt_tokens: 100 * n, completion_tokens: 10 * n, total_tokens: 110 * n },
  }),
);

const model = () =>
  new OpenAICompatibleModel({
    baseUrl: lb.url,
    model: 'compactor',
    maxOutputTokens: 8192,
    stream: false,
    retryBaseMs: 5,
  });
const T = (c: string) => c.repeat(400); // 100 tokens
const ZERO_COST = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, totalFromProvider: false };

function appended(path: string, before: string): any[] {
  const now = readFileSync(path, 'utf8');
  assert.ok(now.startsWith(before));
  return now
    .slice(before.length)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('prepareCompaction', () => {
  test('cuts at a turn start once keepRecentTokens is reached; tokensBefore from the last usage', () => {
    const b = new SessionBuilder();
    const ids = [
      b.user(T('a')),
      b.assistant({ text: T('b') }),
      b.user(T('c')),
      b.assistant({ text: T('d') }),
      b.user(T('e')),
      b.assistant({ text: T('f') }),
    ];
    const path = b.entries as any[];
    const prep = prepareCompaction(path, { reserveTokens: 16384, keepRecentTokens: 200 })!;
    assert.equal(prep.firstKeptEntryId, ids[4]);
    assert.equal(prep.isSplitTurn, false);
    assert.equal(prep.messagesToSummarize.length, 4);
    assert.equal(prep.turnPrefixMessages.length, 0);
    assert.equal(prep.tokensBefore, 120, 'last assistant usage (100 in + 20 out)');
    assert.deepEqual(prep.summarizedEntryIds, ids.slice(0, 4));
    assert.deepEqual(prep.keptEntryIds, ids.slice(4));
    assert.equal(prep.keptTokens, 200);
    // Without usage the estimate is the sum of the messages.
    for (const e of path) if (e.message.role === 'assistant') delete e.message.usage;
    assert.equal(prepareCompaction(path, { reserveTokens: 0, keepRecentTokens: 200 })!.tokensBefore, 600);
  });

  test('never cuts at a tool result; a cut inside a turn is a split turn', () => {
    const b = new SessionBuilder();
    const u1 = b.user(T('q'));
    b.assistant({ text: T('r') });
    const u2 = b.user(T('s'));
    const a2 = b.assistant({ text: 'look', calls: [{ name: 'read', args: { path: 'x.ts' }, id: 'k1' }] });
    b.toolResult('k1', 'read', T('t'));
    const a3 = b.assistant({
      text: 'and',
      calls: [{ name: 'edit', args: { path: 'y.ts', oldText: 'a', newText: 'b' }, id: 'k2' }],
    });
    b.toolResult('k2', 'edit', T('u'));
    b.assistant({ text: T('v') });
    // Walking back: v 100 + tool result 100 + a3 13 reaches 210 at a3, an assistant message inside
    // the turn started by u2. (At 150 the walk would stop at the tool result and cut at v instead.)
    assert.equal(
      prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 150 })!.firstKeptEntryId,
      b.entries[7].id,
    );
    const prep = prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 210 })!;
    assert.equal(prep.firstKeptEntryId, a3);
    assert.equal(prep.isSplitTurn, true);
    assert.deepEqual(
      prep.messagesToSummarize.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.deepEqual(
      prep.turnPrefixMessages.map((m) => m.role),
      ['user', 'assistant', 'toolResult'],
    );
    assert.deepEqual(prep.summarizedEntryIds.slice(0, 3), [u1, b.entries[1].id, u2]);
    assert.ok(prep.summarizedEntryIds.includes(a2));
    // File ops from the turn prefix count, not from the kept part.
    assert.deepEqual([...prep.fileOps.read], ['x.ts']);
    assert.deepEqual([...prep.fileOps.edited], []);
  });

  test('the cut moves back over context-invisible entries (labels, model changes, custom)', () => {
    const b = new SessionBuilder();
    b.user(T('a'));
    b.assistant({ text: T('b') });
    const lbl = b.label(b.entries[0].id, 'start');
    b.modelChange();
    b.custom();
    const u = b.user(T('c'));
    b.assistant({ text: T('d') });
    const prep = prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 200 })!;
    assert.equal(prep.firstKeptEntryId, lbl);
    assert.deepEqual(prep.keptEntryIds.slice(0, 4), [lbl, b.entries[3].id, b.entries[4].id, u]);
  });

  test('a failed attempt hidden by a context edit at the end moves the cut one entry later (pi overflow recovery)', () => {
    const b = new SessionBuilder();
    b.user(T('a'));
    b.assistant({ text: T('b') });
    const u = b.user('u'.repeat(200)); // 50 tokens
    const failed = b.assistant({ text: T('x'), stopReason: 'length' });
    b.contextEdit(failed, null);
    const prep = prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 50 })!;
    // Without the rule the cut would be u; with it, the hidden attempt starts the kept part and u
    // becomes the prefix of a split turn.
    assert.equal(prep.firstKeptEntryId, failed);
    assert.equal(prep.isSplitTurn, true);
    assert.deepEqual(
      prep.turnPrefixMessages.map((m) => m.role),
      ['user'],
    );
    assert.equal((prep.turnPrefixMessages[0].content as any[])[0].text, 'u'.repeat(200));
    // An edit that replaces some other entry's content is not a recovery: the cut stays at u.
    b.contextEdit(u, { content: 'short' });
    assert.equal(prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 1 })!.firstKeptEntryId, u);
  });

  test('nothing to do: already compacted, or too small', () => {
    const b = new SessionBuilder();
    const u = b.user('hi');
    b.assistant({ text: 'hello' });
    assert.equal(prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 20000 }), undefined);
    b.compaction('s', u, 10);
    assert.equal(prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 1 }), undefined);
  });

  test('a previous compaction: its summary is updated and its kept entries are summarized again', () => {
    const b = new SessionBuilder();
    b.user(T('a'));
    b.assistant({ text: T('b'), calls: [{ name: 'write', args: { path: 'gone.ts', content: '' }, id: 'w' }] });
    const keep1 = b.user(T('c'));
    b.assistant({ text: T('d') });
    b.compaction('OLD SUMMARY', keep1, 5000, {
      details: { readFiles: ['prev/read.md'], modifiedFiles: ['prev/mod.ts'] },
      fromHook: false,
    });
    b.user(T('e'));
    b.assistant({ text: T('f') });
    const last = b.user(T('g'));
    b.assistant({ text: T('h') });
    const prep = prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 200 })!;
    assert.equal(prep.previousSummary, 'OLD SUMMARY');
    assert.equal(prep.firstKeptEntryId, last);
    // keep1, its answer, and the two messages after the compaction; not the entries before keep1.
    assert.deepEqual(
      prep.messagesToSummarize.map((m) => (m.content as any[])[0].text[0]),
      ['c', 'd', 'e', 'f'],
    );
    assert.deepEqual([...prep.fileOps.read], ['prev/read.md']);
    assert.deepEqual([...prep.fileOps.edited], ['prev/mod.ts']);
    // tokensBefore: usage from before the compaction is not trusted ⇒ estimate of the projection.
    assert.equal(prep.tokensBefore, 120, 'the last usage (h) comes after the compaction and is trusted');
  });

  test('an extension-made previous compaction (fromHook) does not carry its file lists', () => {
    const b = new SessionBuilder();
    const k = b.user(T('a'));
    b.assistant({ text: T('b') });
    b.compaction('HOOK', k, 1, { details: { readFiles: ['hook.md'], modifiedFiles: [] }, fromHook: true });
    b.user(T('c'));
    b.assistant({ text: T('d') });
    const prep = prepareCompaction(b.entries as any[], { reserveTokens: 0, keepRecentTokens: 100 })!;
    assert.deepEqual([...prep.fileOps.read], []);
  });
});

describe('compact and commit', () => {
  test('one call; the compaction line is written like pi appendCompaction; context = summary + kept', async () => {
    const b = new SessionBuilder();
    b.user(T('a'));
    b.assistant({ text: 'reading', calls: [{ name: 'read', args: { path: 'docs/spec.md' }, id: 'r1' }] });
    b.toolResult('r1', 'read', T('t'), {
      nestedCalls: {
        calls: [{ id: 'n1', name: 'edit', arguments: { path: 'src/nested.ts' }, status: 'ok' }],
        complete: true,
      },
    });
    b.assistant({ text: T('b') });
    const keep = b.user(T('c'));
    const leaf = b.assistant({ text: T('d') });
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    const plan = await planCompaction(session, { keepRecentTokens: 200 });
    assert.equal(plan.preparation!.firstKeptEntryId, keep);
    const preview = previewCompaction(plan.preparation!);
    assert.deepEqual(
      { ...preview },
      {
        firstKeptEntryId: keep,
        isSplitTurn: false,
        tokensBefore: 120,
        summarizedEntries: 4,
        summarizedTokens: 100 + Math.ceil((7 + 4 + JSON.stringify({ path: 'docs/spec.md' }).length) / 4) + 100 + 100,
        keptEntries: 2,
        keptTokens: 200,
        hasPreviousSummary: false,
        readFiles: ['docs/spec.md'],
        modifiedFiles: ['src/nested.ts'],
      },
    );
    const result = await summarizeCompaction(plan.preparation!, model(), { focus: 'keep the spec details' });
    assert.equal(readFileSync(file, 'utf8'), original, 'nothing written before commit');
    assert.equal(lb.requests.length, 1);
    const body = lb.requests[0].body;
    assert.equal(body.model, 'compactor');
    assert.equal(body.max_tokens, 8192);
    assert.equal(body.messages[0].content, SUMMARY_SYSTEM_PROMPT);
    const conversation = [
      `[User]: ${T('a')}`,
      '[Assistant]: reading',
      '[Assistant tool calls]: read(path="docs/spec.md")',
      `[Tool result]: ${T('t')}`,
      `[Assistant]: ${T('b')}`,
    ].join('\n\n');
    assert.equal(
      body.messages[1].content,
      `<conversation>\n${conversation}\n</conversation>\n\n${COMPACTION_PROMPT}\n\nAdditional focus: keep the spec details`,
    );
    for (const h of [
      '## Goal',
      '## Constraints & Preferences',
      '## Progress',
      '### Done',
      '### In Progress',
      '### Blocked',
      '## Key Decisions',
      '## Next Steps',
      '## Critical Context',
    ]) {
      assert.ok(COMPACTION_PROMPT.includes(`\n${h}\n`) && COMPACTION_UPDATE_PROMPT.includes(`\n${h}\n`), h);
    }

    const { entry, estimatedTokensAfter } = await commitCompaction(session, plan, result);
    const [line] = appended(file, original);
    assert.deepEqual(Object.keys(line), [
      'type',
      'id',
      'parentId',
      'timestamp',
      'summary',
      'firstKeptEntryId',
      'tokensBefore',
      'details',
      'usage',
      'fromHook',
    ]);
    assert.deepEqual(line, {
      type: 'compaction',
      id: entry.id,
      parentId: leaf,
      timestamp: entry.timestamp,
      summary:
        'SUMMARY 1\n\n<read-files>\ndocs/spec.md\n</read-files>\n\n<modified-files>\nsrc/nested.ts\n</modified-files>',
      firstKeptEntryId: keep,
      tokensBefore: 120,
      details: { readFiles: ['docs/spec.md'], modifiedFiles: ['src/nested.ts'] },
      usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0, totalTokens: 110, cost: ZERO_COST },
      fromHook: false,
    });
    const reopened = await Session.open(file);
    assert.equal(reopened.leafId, entry.id);
    const ctx = await reopened.buildContext();
    assert.deepEqual(
      ctx.messages.map((m) => m.role),
      ['compactionSummary', 'user', 'assistant'],
    );
    assert.equal(estimatedTokensAfter, Math.ceil(line.summary.length / 4) + 200);
  });

  test('the system message state is replayed into the compaction with the compaction time', async () => {
    const b = new SessionBuilder();
    const tool = { name: 'read', description: 'Read a file', parameters: { type: 'object' } };
    b.system('You are pi.', { sections: { env: 'cwd=/p', skills: 'none' }, toolsAdded: [tool] });
    b.user(T('a'));
    b.assistant({ text: T('b') });
    b.system('', {
      sections: { skills: null, date: 'today' },
      toolsAdded: [{ name: 'bash', description: 'Run', parameters: {} }],
      toolsRemoved: [{ name: 'read' }],
    });
    b.user(T('c'));
    b.assistant({ text: T('d') });
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    const plan = await planCompaction(session, { keepRecentTokens: 200 });
    const result = await summarizeCompaction(plan.preparation!, model());
    assert.doesNotMatch(
      lb.requests[0].body.messages[1].content,
      /You are pi|cwd=/,
      'system messages are not summarized',
    );
    const { entry } = await commitCompaction(session, plan, result);
    const [line] = appended(file, original);
    assert.deepEqual(Object.keys(line).slice(-2), ['fromHook', 'systemMessage']);
    const firstSystemTs = (b.entries[0] as any).message.timestamp;
    assert.ok(firstSystemTs !== Date.parse(entry.timestamp));
    assert.deepEqual(line.systemMessage, {
      role: 'system',
      content: 'You are pi.',
      sections: { env: 'cwd=/p', date: 'today' },
      toolsAdded: [{ name: 'bash', description: 'Run', parameters: {} }],
      timestamp: Date.parse(entry.timestamp),
    });
    assert.deepEqual(Object.keys(line.systemMessage), ['role', 'content', 'sections', 'toolsAdded', 'timestamp']);
    const ctx = await (await Session.open(file)).buildContext();
    assert.deepEqual(
      ctx.messages.map((m) => m.role),
      ['system', 'compactionSummary', 'user', 'assistant'],
    );
  });

  test("split turn: history and turn prefix are summarized separately and merged with pi's separator", async () => {
    const b = new SessionBuilder();
    b.user(T('h'));
    b.assistant({ text: T('i') });
    b.user(T('s'));
    b.assistant({ text: 'look', calls: [{ name: 'read', args: { path: 'x.ts' }, id: 'k1' }] });
    b.toolResult('k1', 'read', T('t'));
    const cut = b.assistant({ text: 'and', calls: [{ name: 'edit', args: { path: 'y.ts' }, id: 'k2' }] });
    b.toolResult('k2', 'edit', T('u'));
    b.assistant({ text: T('v') });
    const file = b.write();
    const original = readFileSync(file, 'utf8');
    const session = await Session.open(file);
    const plan = await planCompaction(session, { keepRecentTokens: 210 });
    assert.equal(plan.preparation!.isSplitTurn, true);
    const result = await summarizeCompaction(plan.preparation!, model(), { focus: 'F' });
    assert.equal(lb.requests.length, 2);
    const [hist, prefix] = lb.requests.map((r) => r.body.messages[1].content as string);
    assert.equal(
      hist,
      `<conversation>\n[User]: ${T('h')}\n\n[Assistant]: ${T('i')}\n</conversation>\n\n${COMPACTION_PROMPT}\n\nAdditional focus: F`,
    );
    assert.equal(
      prefix,
      `# Conversation\n[User]: ${T('s')}\n\n[Assistant]: look\n\n[Assistant tool calls]: read(path="x.ts")\n\n[Tool result]: ${T('t')}\n\n# Instructions\n${TURN_PREFIX_PROMPT}\n\nAdditional focus: F`,
    );
    for (const h of ['## Original Request', '## Progress So Far', '## Context Needed to Continue'])
      assert.ok(TURN_PREFIX_PROMPT.includes(`\n${h}\n`), h);
    await commitCompaction(session, plan, result);
    const [line] = appended(file, original);
    assert.equal(line.firstKeptEntryId, cut);
    assert.equal(
      line.summary,
      'SUMMARY 1\n\n---\n\n**Turn Context (split turn):**\n\nSUMMARY 2\n\n<read-files>\nx.ts\n</read-files>',
    );
    assert.deepEqual(line.usage, {
      input: 300,
      output: 30,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      totalTokens: 330,
      cost: ZERO_COST,
    });
  });

  test('split turn with no history before it uses "No prior history." and one call', async () => {
    const b = new SessionBuilder();
    b.user(T('s'));
    b.assistant({ text: 'a', calls: [{ name: 'read', args: { path: 'x' }, id: 'k' }] });
    b.toolResult('k', 'read', T('t'));
    b.assistant({ text: T('v') });
    const session = await Session.open(b.write());
    const plan = await planCompaction(session, { keepRecentTokens: 100 });
    assert.equal(plan.preparation!.isSplitTurn, true);
    const r = await summarizeCompaction(plan.preparation!, model());
    assert.equal(lb.requests.length, 1);
    assert.ok((lb.requests[0].body.messages[1].content as string).startsWith('# Conversation\n'));
    assert.equal(
      r.summary,
      'No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nSUMMARY 1\n\n<read-files>\nx\n</read-files>',
    );
  });

  test('incremental: the previous summary goes in <previous-summary> with the update prompt', async () => {
    const b = new SessionBuilder();
    const k = b.user(T('a'));
    b.assistant({ text: T('b') });
    b.compaction('PREVIOUS', k, 99, { details: { readFiles: [], modifiedFiles: [] }, fromHook: false });
    b.user(T('c'));
    b.assistant({ text: T('d') });
    const session = await Session.open(b.write());
    const plan = await planCompaction(session, { keepRecentTokens: 200 });
    assert.equal(plan.preparation!.isSplitTurn, false);
    await summarizeCompaction(plan.preparation!, model());
    const prompt = lb.requests[0].body.messages[1].content as string;
    // The previous compaction kept a and b: they are summarized again, with the old summary.
    assert.equal(
      prompt,
      `<conversation>\n[User]: ${T('a')}\n\n[Assistant]: ${T('b')}\n</conversation>\n\n<previous-summary>\nPREVIOUS\n</previous-summary>\n\n${COMPACTION_UPDATE_PROMPT}`,
    );
  });

  test('plan reasons, and commit refuses a session that moved on', async () => {
    const b = new SessionBuilder();
    const u = b.user('x');
    b.assistant({ text: 'y' });
    const small = await Session.open(b.write());
    assert.equal((await planCompaction(small)).reason, 'Nothing to compact (session too small)');
    b.compaction('s', u, 1);
    assert.equal((await planCompaction(await Session.open(b.write()))).reason, 'Already compacted');

    const c = new SessionBuilder();
    c.user(T('a'));
    c.assistant({ text: T('b') });
    c.user(T('c'));
    c.assistant({ text: T('d') });
    const file = c.write();
    const session = await Session.open(file);
    const plan = await planCompaction(session, { keepRecentTokens: 100 });
    const result = await summarizeCompaction(plan.preparation!, model());
    await (await Session.open(file)).appendMessage({ role: 'user', content: 'late', timestamp: 1 });
    const before = readFileSync(file, 'utf8');
    await assert.rejects(commitCompaction(session, plan, result), /session changed.*nothing was written/);
    assert.equal(readFileSync(file, 'utf8'), before);
  });
});
