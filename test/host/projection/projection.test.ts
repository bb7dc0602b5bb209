import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { appendFileSync } from 'node:fs';
import { Projector, projectAll, projectAppended, projectParts } from '../../../src/host/projection/projection.js';
import { deepObject, deepSession } from '../../support/deepSession.js';
import { generateSession } from '../../support/generate.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

describe('projection for the webview', () => {
  it('kinds, pi row text, tools, files, usage, labels, tree parents', async () => {
    const s = await Session.inMemory(
      sessionText([
        user('u1', null, 'read the file please'),
        {
          ...assistant('a1', 'u1', ''),
          message: {
            role: 'assistant',
            content: [
              { type: 'toolCall', id: 't1', name: 'read', arguments: { path: '/x/a.ts', offset: 2, limit: 3 } },
            ],
            provider: 'anthropic',
            model: 'm1',
            usage: { input: 5, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 10, cost: { total: 0.5 } },
            stopReason: 'toolUse',
            timestamp: 1,
          },
        },
        entry('message', 'r1', 'a1', {
          message: {
            role: 'toolResult',
            toolCallId: 't1',
            toolName: 'read',
            content: [{ type: 'text', text: 'x' }],
            isError: false,
            timestamp: 2,
          },
        }),
        entry('label', 'l1', 'r1', { targetId: 'u1', label: 'start' }),
        entry('branch_summary', 'b1', 'ghost', {
          fromId: 'r1',
          summary: 'left',
          details: { readFiles: ['q.ts'], modifiedFiles: [] },
        }),
      ]),
    );
    const nodes = await projectAll(s.index, s.index.live(), s);
    const by = new Map(nodes.map((n) => [n.id, n]));
    assert.equal(by.get('u1')!.kind, 'user');
    assert.equal(by.get('u1')!.label, 'start');
    assert.equal(by.get('u1')!.text, 'user: read the file please');
    assert.deepStrictEqual(by.get('a1')!.tools, ['read']);
    assert.deepStrictEqual(by.get('a1')!.files, ['/x/a.ts']);
    assert.equal(by.get('a1')!.tokens, 10);
    assert.equal(by.get('a1')!.noText, true);
    assert.equal(by.get('r1')!.text, '[read: /x/a.ts:2-4]');
    assert.equal(by.get('l1')!.kind, 'label');
    assert.equal(by.get('b1')!.parentId, null, 'missing parent → root');
    assert.deepStrictEqual(by.get('b1')!.files, ['q.ts']);
  });

  it('appended records: their nodes (a result named after a call the worker saw, learnt from above), the labels they change', async () => {
    const call = {
      ...assistant('a1', 'u1', ''),
      message: {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 't1', name: 'read', arguments: { path: '/x/a.ts' } }],
        stopReason: 'toolUse',
        timestamp: 1,
      },
    };
    const file = tempFile(sessionText([user('u1', null, 'read it'), call]));
    const s = await Session.open(file);
    // as after a worker's snapshot: this projector has not seen call t1
    const projector = new Projector(s.index);
    projector.workerMade = true;
    const more = [
      entry('message', 'r1', 'a1', {
        message: {
          role: 'toolResult',
          toolCallId: 't1',
          toolName: 'read',
          content: [{ type: 'text', text: 'x' }],
          isError: false,
          timestamp: 2,
        },
      }),
      entry('label', 'l1', 'r1', { targetId: 'u1', label: 'start' }),
      entry('label', 'l2', 'l1', { targetId: 'a1' }),
    ];
    appendFileSync(file, more.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const c = await s.refresh();
    assert.equal(c?.kind, 'appended');
    const r = await projectAppended(projector, s, c.kind === 'appended' ? c.records : []);
    assert.deepEqual(
      r.fresh.map((x) => x.id),
      ['r1', 'l1', 'l2'],
    );
    assert.equal(
      r.nodes.find((n) => n.id === 'r1')!.text,
      '[read: /x/a.ts]',
      'named after its call, read from the message above',
    );
    assert.deepEqual(r.labelChanges, [
      { targetId: 'u1', label: 'start' },
      { targetId: 'a1', label: undefined },
    ]);
  });

  it('tool results read from head and tail project exactly like fully parsed ones', async () => {
    const g = generateSession({ seed: 11, entries: 6000, largeOutputRate: 0.3, branchRate: 0.03 });
    const s = await Session.inMemory(g.text);
    const live = s.index.live();
    const fast = await projectAll(s.index, live, s);
    const projector = new Projector(s.index);
    const full = (await s.load(live)).map((e, i) => projector.project(live[i], e));
    assert.ok(
      live.filter((r) => r.role === 'toolResult' && r.length > 2048).length > 100,
      'large tool results were exercised too',
    );
    assert.deepStrictEqual(fast, full);
  });

  it('100k entries project in batches without losing any', async () => {
    const g = generateSession({ seed: 3, entries: 20000, branchRate: 0.03, labels: 5 });
    const s = await Session.inMemory(g.text);
    const nodes = await projectAll(s.index, s.index.live(), s);
    assert.equal(nodes.length, s.index.size);
    assert.ok(nodes.every((n) => n && typeof n.text === 'string'));
  });

  it('projectParts hands over the nodes in order, in parts of the given size, and keeps none', async () => {
    const g = generateSession({ seed: 11, entries: 2345, branchRate: 0.03, compactions: 1, labels: 5 });
    const s = await Session.inMemory(g.text);
    const live = s.index.live();
    const parts: { from: number; ids: string[] }[] = [];
    await projectParts(s.index, live, s, new Projector(s.index), 1000, (nodes, from) => {
      parts.push({ from, ids: nodes.map((n) => n.id) });
      nodes.length = 0; // the caller owns the part: emptying it must not disturb the next one
    });
    assert.deepStrictEqual(
      parts.map((p) => [p.from, p.ids.length]),
      [
        [0, 1000],
        [1000, 1000],
        [2000, live.length - 2000],
      ],
    );
    assert.deepStrictEqual(
      parts.flatMap((p) => p.ids),
      live.map((r) => r.id),
    );
    const all = await projectAll(s.index, live, s);
    assert.deepStrictEqual(
      all.map((n) => n.id),
      live.map((r) => r.id),
    );
    // an empty session still gets one (empty) part: the webview needs its snapshot
    const empty = await Session.inMemory(sessionText([]));
    const got: number[] = [];
    await projectParts(
      empty.index,
      empty.index.live(),
      empty,
      new Projector(empty.index),
      1000,
      (nodes) => void got.push(nodes.length),
    );
    assert.deepStrictEqual(got, [0]);
  });

  for (const depth of [10_000, 200_000]) {
    it(`entries nested ${depth.toLocaleString('en-US')} levels deep: every row, the call text pi's (it overflowed the stack)`, async () => {
      const { text, ids } = deepSession(depth);
      const s = await Session.inMemory(text);
      const nodes = await projectAll(s.index, s.index.live(), s);
      assert.deepStrictEqual(
        nodes.map((n) => n.id),
        Object.values(ids),
      );
      // pi's tree-selector: `[name: ${JSON.stringify(args).slice(0, 40)}...]`
      assert.equal(
        nodes.find((n) => n.id === ids.r1)!.text,
        `[lookup: ${`{"query":${deepObject(depth)}}`.slice(0, 40)}...]`,
      );
      assert.equal(nodes.find((n) => n.id === ids.a1)!.text, 'assistant: looking');
    });
  }
});
