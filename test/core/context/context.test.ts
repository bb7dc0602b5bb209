import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX, convertToLlm } from '../../../src/core/context/context.js';
import { Session } from '../../../src/core/session/session.js';
import { loadPi } from '../../support/pi.js';
import { assistant, entry, sessionText, user } from '../../support/tmp.js';

type E = Record<string, unknown>;

async function both(entries: E[], leafId?: string | null) {
  const s = await Session.inMemory(sessionText(entries));
  const ours = await s.buildContext(leafId === undefined ? s.leafId : leafId);
  const { buildSessionContext } = await loadPi();
  const theirs = buildSessionContext(entries, leafId === undefined ? entries[entries.length - 1]?.id : leafId);
  return { ours, theirs, s };
}

async function same(entries: E[], leafId?: string | null) {
  const { ours, theirs } = await both(entries, leafId);
  assert.deepStrictEqual(ours.messages, theirs.messages);
  assert.equal(JSON.stringify(ours.messages), JSON.stringify(theirs.messages), 'same key order');
  assert.equal(ours.thinkingLevel, theirs.thinkingLevel);
  assert.deepStrictEqual(ours.model, theirs.model);
  return ours;
}

describe('buildContext (pi 1.6.0 buildSessionContext)', () => {
  it('empty session has no messages', async () => {
    const s = await Session.inMemory(sessionText([]));
    const c = await s.buildContext();
    assert.deepStrictEqual(c.messages, []);
    assert.equal(c.thinkingLevel, 'off');
    assert.equal(c.model, null);
  });

  it('single user message and a simple conversation', async () => {
    await same([user('u1', null, 'hi')]);
    const c = await same([
      user('u1', null, 'hi'),
      assistant('a1', 'u1', 'hello'),
      user('u2', 'a1', 'more'),
      assistant('a2', 'u2', 'ok'),
    ]);
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
  });

  it('thinking level and model from changes and from assistant messages', async () => {
    const c = await same([
      entry('thinking_level_change', 't1', null, { thinkingLevel: 'high' }),
      entry('model_change', 'm1', 't1', { provider: 'openai', modelId: 'gpt-x' }),
      user('u1', 'm1', 'hi'),
    ]);
    assert.equal(c.thinkingLevel, 'high');
    assert.deepStrictEqual(c.model, { provider: 'openai', modelId: 'gpt-x' });
    const c2 = await same([
      entry('model_change', 'm1', null, { provider: 'openai', modelId: 'gpt-x' }),
      user('u1', 'm1', 'hi'),
      assistant('a1', 'u1', 'yo'),
    ]);
    assert.deepStrictEqual(c2.model, { provider: 'anthropic', modelId: 'claude-x' });
  });

  it('compaction: summary first, kept entries from firstKeptEntryId, then later entries; latest wins', async () => {
    const es = [
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'r1'),
      user('u2', 'a1', 'two'),
      assistant('a2', 'u2', 'r2'),
      entry('compaction', 'c1', 'a2', { summary: 'S1', firstKeptEntryId: 'u2', tokensBefore: 1000 }),
      user('u3', 'c1', 'three'),
      assistant('a3', 'u3', 'r3'),
      entry('compaction', 'c2', 'a3', { summary: 'S2', firstKeptEntryId: 'u3', tokensBefore: 2000 }),
      user('u4', 'c2', 'four'),
    ];
    const c = await same(es);
    assert.equal(c.messages[0].role, 'compactionSummary');
    assert.equal(c.messages[0].summary, 'S2');
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['compactionSummary', 'user', 'assistant', 'user'],
    );
    await same(es, 'a3');
  });

  it('compaction keeping everything, and retain-none (firstKeptEntryId = own id)', async () => {
    await same([
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'r1'),
      entry('compaction', 'c1', 'a1', { summary: 'S', firstKeptEntryId: 'u1', tokensBefore: 5 }),
      user('u2', 'c1', 'x'),
    ]);
    const c = await same([
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'r1'),
      entry('compaction', 'c1', 'a1', { summary: 'S', firstKeptEntryId: 'c1', tokensBefore: 5 }),
      user('u2', 'c1', 'x'),
    ]);
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['compactionSummary', 'user'],
    );
  });

  it('compaction systemMessage leads; system messages in the kept range are dropped', async () => {
    const sys = { role: 'system', content: 'SYS', timestamp: 5 };
    const c = await same([
      entry('message', 's0', null, { message: { role: 'system', content: 'old', timestamp: 1 } }),
      user('u1', 's0', 'one'),
      entry('message', 's1', 'u1', { message: { role: 'system', content: 'patch', timestamp: 2 } }),
      assistant('a1', 's1', 'r1'),
      entry('compaction', 'c1', 'a1', { summary: 'S', firstKeptEntryId: 'u1', tokensBefore: 5, systemMessage: sys }),
      user('u2', 'c1', 'x'),
    ]);
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['system', 'compactionSummary', 'user', 'assistant', 'user'],
    );
  });

  it('branch summary appears in its place; path follows the given leaf', async () => {
    const es = [
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'r1'),
      user('u2', 'a1', 'two (abandoned)'),
      assistant('a2', 'u2', 'r2'),
      entry('branch_summary', 'b1', 'a1', { fromId: 'a2', summary: 'SUM' }),
      user('u3', 'b1', 'three'),
    ];
    const c = await same(es);
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['user', 'assistant', 'branchSummary', 'user'],
    );
    const llm = convertToLlm(c.messages);
    assert.equal((llm[2].content as { text: string }[])[0].text, `${BRANCH_SUMMARY_PREFIX}SUM</summary>`);
    await same(es, 'a2');
    // an empty summary contributes nothing
    await same([user('u1', null, 'one'), entry('branch_summary', 'b1', 'u1', { fromId: 'u1', summary: '' })]);
  });

  it('context edits omit and replace (latest per target wins)', async () => {
    const c = await same([
      user('u1', null, 'one'),
      assistant('a1', 'u1', 'r1'),
      user('u2', 'a1', 'two'),
      entry('context_edit', 'e1', 'u2', { targetId: 'a1', replacement: { content: 'R' } }),
      entry('context_edit', 'e2', 'e1', { targetId: 'u1', replacement: null }),
      entry('context_edit', 'e3', 'e2', { targetId: 'a1', replacement: { content: [{ type: 'text', text: 'R2' }] } }),
    ]);
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['assistant', 'user'],
    );
  });

  it('custom_message, bashExecution, unknown entries (leaf, custom, label) and unknown leaf id', async () => {
    const es = [
      user('u1', null, 'one'),
      {
        type: 'custom_message',
        customType: 'ext',
        content: 'injected',
        display: true,
        id: 'cm',
        parentId: 'u1',
        timestamp: '2026-11-01T10:00:00.000Z',
      },
      {
        type: 'custom',
        customType: 'state',
        data: { a: 1 },
        id: 'cu',
        parentId: 'cm',
        timestamp: '2026-11-01T10:00:01.000Z',
      },
      entry('label', 'l1', 'cu', { targetId: 'u1', label: 'x' }),
      entry('message', 'b1', 'l1', {
        message: {
          role: 'bashExecution',
          command: 'ls',
          output: '',
          exitCode: 2,
          cancelled: false,
          truncated: false,
          timestamp: 9,
        },
      }),
      entry('leaf', 'lf', 'b1', { targetId: 'b1' }),
    ];
    const c = await same(es);
    assert.deepStrictEqual(
      c.messages.map((m) => m.role),
      ['user', 'custom', 'bashExecution'],
    );
    const llm = convertToLlm(c.messages);
    assert.equal((llm[2].content as { text: string }[])[0].text, 'Ran `ls`\n(no output)\n\nCommand exited with code 2');
    // pi: an unknown leaf id falls back to the last entry
    const { theirs } = await both(es, 'nope');
    assert.equal(theirs.messages.length, 3);
  });

  it('orphan (missing parent): only the orphan chain', async () => {
    await same([user('u1', null, 'one'), user('u2', 'gone', 'orphan'), assistant('a2', 'u2', 'r')]);
  });

  it('convertToLlm uses pi exact wrappers and drops unknown roles', async () => {
    const llm = convertToLlm([
      { role: 'compactionSummary', summary: 'X', tokensBefore: 1, timestamp: 1 },
      { role: 'custom', customType: 'a', content: 'c', display: true, details: undefined, timestamp: 2 },
      { role: 'weird', timestamp: 3 },
      {
        role: 'bashExecution',
        command: 'x',
        output: 'o',
        exitCode: 0,
        cancelled: true,
        truncated: true,
        fullOutputPath: '/tmp/o',
        timestamp: 4,
      },
      { role: 'bashExecution', command: 'y', output: 'o', excludeFromContext: true, timestamp: 5 },
    ]);
    assert.equal(llm.length, 3);
    assert.equal((llm[0].content as { text: string }[])[0].text, `${COMPACTION_SUMMARY_PREFIX}X\n</summary>`);
    assert.deepStrictEqual(llm[1].content, [{ type: 'text', text: 'c' }]);
    assert.equal(
      (llm[2].content as { text: string }[])[0].text,
      'Ran `x`\n```\no\n```\n\n(command cancelled)\n\n[Output truncated. Full output: /tmp/o]',
    );
    const { convertToLlm: piConvert } = await loadPi();
    const input = [
      { role: 'branchSummary', summary: 'B', fromId: 'x', timestamp: 1 },
      {
        role: 'bashExecution',
        command: 'z',
        output: 'out',
        exitCode: 3,
        cancelled: false,
        truncated: false,
        timestamp: 2,
      },
      { role: 'custom', customType: 'a', content: [{ type: 'text', text: 'arr' }], display: false, timestamp: 3 },
    ];
    assert.deepStrictEqual(convertToLlm(input), piConvert(input));
  });

  it('activeToolNames: last active_tools_change on the path, else system message tools', async () => {
    const s = await Session.inMemory(
      sessionText([
        entry('message', 's0', null, {
          message: { role: 'system', content: '', toolsAdded: [{ name: 'read' }, { name: 'bash' }], timestamp: 1 },
        }),
        user('u1', 's0', 'x'),
      ]),
    );
    assert.deepStrictEqual((await s.buildContext()).activeToolNames, ['read', 'bash']);
    const s2 = await Session.inMemory(
      sessionText([user('u1', null, 'x'), entry('active_tools_change', 't1', 'u1', { activeToolNames: ['edit'] })]),
    );
    assert.deepStrictEqual((await s2.buildContext()).activeToolNames, ['edit']);
    const s3 = await Session.inMemory(sessionText([user('u1', null, 'x')]));
    assert.equal((await s3.buildContext()).activeToolNames, null);
  });
});
