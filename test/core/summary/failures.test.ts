// Every way a summary can fail leaves the session file byte-identical; a retried request is written once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OpenAICompatibleModel } from '../../../src/core/models/openaiCompatible.js';
import { Session } from '../../../src/core/session/session.js';
import {
  commitBranchSummary,
  commitCompaction,
  planBranchSummary,
  planCompaction,
  summarizeBranch,
  summarizeCompaction,
} from '../../../src/core/summary/index.js';
import { closedPort, completionJson, completionSse, useLoopback, type Reply } from '../../support/loopbackOpenAI.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';

const lb = useLoopback();

function sessionFile(): { file: string; target: string } {
  const b = new SessionBuilder();
  const u = b.user('x'.repeat(400));
  const target = b.assistant({ text: 'y'.repeat(400) });
  b.at(u);
  for (let i = 0; i < 4; i++) {
    b.assistant({ text: `step ${i} `.repeat(50), calls: [{ name: 'edit', args: { path: `f${i}.ts` }, id: `c${i}` }] });
    b.toolResult(`c${i}`, 'edit', 'ok');
    b.user(`next ${i} `.repeat(50));
  }
  b.assistant({ text: 'end' });
  return { file: b.write(), target };
}

type Flow = 'branch summary' | 'compaction';

async function run(
  flow: Flow,
  file: string,
  target: string,
  model: OpenAICompatibleModel,
  signal?: AbortSignal,
): Promise<void> {
  const session = await Session.open(file);
  if (flow === 'branch summary') {
    const plan = await planBranchSummary(session, target);
    await commitBranchSummary(session, await summarizeBranch(plan, model, { signal }));
  } else {
    // Cuts at the last user message (no split turn): one request per attempt.
    const plan = await planCompaction(session, { keepRecentTokens: 80 });
    assert.equal(plan.preparation!.isSplitTurn, false);
    await commitCompaction(session, plan, await summarizeCompaction(plan.preparation!, model, { signal }));
  }
}

const mk = (o: Partial<ConstructorParameters<typeof OpenAICompatibleModel>[0]> = {}) =>
  new OpenAICompatibleModel({ baseUrl: lb.url, model: 'm', retryBaseMs: 5, maxRetries: 2, timeoutMs: 3000, ...o });

const failures: {
  name: string;
  reply?: Reply;
  model?: () => Promise<OpenAICompatibleModel>;
  expect: RegExp;
  requests?: number;
  code?: string;
}[] = [
  {
    name: 'HTTP 500 after retries',
    reply: { kind: 'json', status: 500, body: { error: { message: 'boom' } } },
    expect: /HTTP 500: boom.*3 attempts/,
    requests: 3,
    code: 'server',
  },
  {
    name: 'timeout',
    reply: { kind: 'hang' },
    model: async () => mk({ timeoutMs: 200 }),
    expect: /sent nothing/,
    requests: 1,
    code: 'timeout',
  },
  {
    name: 'malformed JSON',
    reply: { kind: 'text', body: 'not json at all', headers: { 'content-type': 'application/json' } },
    expect: /not JSON/,
    requests: 1,
    code: 'malformed',
  },
  {
    name: 'truncated answer (finish_reason length)',
    reply: completionSse('half a sum', { finish: 'length' }),
    expect: /token cap/,
    requests: 1,
    code: 'incomplete',
  },
  {
    name: 'HTTP 401',
    reply: { kind: 'json', status: 401, body: { error: { message: 'no key' } } },
    expect: /API key/,
    requests: 1,
    code: 'auth',
  },
  {
    name: 'connection refused',
    model: async () =>
      new OpenAICompatibleModel({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1`, model: 'm', retryBaseMs: 5 }),
    expect: /connection refused/,
    code: 'connection',
  },
];

for (const flow of ['branch summary', 'compaction'] as Flow[]) {
  describe(`${flow}: failures write nothing`, () => {
    for (const f of failures) {
      test(f.name, async () => {
        const { file, target } = sessionFile();
        const original = readFileSync(file);
        if (f.reply) lb.setHandler(() => f.reply!);
        const model = f.model ? await f.model() : mk();
        await assert.rejects(run(flow, file, target, model), (e: Error & { code?: string }) => {
          assert.match(e.message, f.expect);
          if (f.code) assert.equal(e.code, f.code);
          return true;
        });
        assert.deepEqual(readFileSync(file), original);
        if (f.requests !== undefined) assert.equal(lb.requests.length, f.requests);
      });
    }

    test('cancel mid-stream', async () => {
      const { file, target } = sessionFile();
      const original = readFileSync(file);
      const ac = new AbortController();
      // Cancelled once the answer has started and stalls: headers and three pieces are out, the stream open.
      lb.setHandler(() => ({
        ...completionSse('a summary that never ends', { pieces: 6, stopAfterPieces: 3, hang: true }),
        onHang: () => ac.abort(),
      }));
      const p = run(flow, file, target, mk({ timeoutMs: 30_000 }), ac.signal);
      await assert.rejects(p, (e: Error) => e.name === 'AbortError');
      assert.equal(lb.requests.length, 1);
      assert.deepEqual(readFileSync(file), original);
    });

    test('429 then success: retried, written once', async () => {
      const { file, target } = sessionFile();
      const original = readFileSync(file, 'utf8');
      lb.setHandler((_r, n) =>
        n === 1 ? { kind: 'json', status: 429, body: {}, headers: { 'retry-after': '0' } } : completionJson('fine'),
      );
      await run(flow, file, target, mk());
      assert.equal(lb.requests.length, 2);
      const added = readFileSync(file, 'utf8')
        .slice(original.length)
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        added.map((e) => e.type),
        flow === 'branch summary' ? ['leaf', 'branch_summary'] : ['compaction'],
      );
      assert.equal(added.filter((e) => /fine/.test(e.summary ?? '')).length, 1);
    });
  });
}
