// The OpenAI-compatible client against answers that never end (issue #13 item 4), on a real loopback
// server: endless JSON and error bodies, SSE data without newlines, keep-alive comments forever, a
// stream that trickles forever, retries past the overall deadline, and redirects to another origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OpenAICompatibleModel } from '../../../src/core/models/openaiCompatible.js';
import { SummaryModelError } from '../../../src/core/summary/model.js';
import { completionJson, completionSse, endless, startLoopback, type Loopback } from '../../support/loopbackOpenAI.js';

let lb: Loopback;
let other: Loopback;
before(async () => {
  lb = await startLoopback();
  other = await startLoopback(() => completionJson('FROM THE OTHER ORIGIN'));
});
after(async () => {
  await lb.close();
  await other.close();
});

const model = (extra: Partial<ConstructorParameters<typeof OpenAICompatibleModel>[0]> = {}) =>
  new OpenAICompatibleModel({
    baseUrl: lb.url,
    model: 'm',
    apiKey: 'sk-secret',
    retryBaseMs: 10,
    maxRetries: 0,
    timeoutMs: 2000,
    ...extra,
  });

async function rejects(p: Promise<unknown>, code: string, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof SummaryModelError, `expected SummaryModelError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return true;
  });
}

const KB64 = 'x'.repeat(64 * 1024);
const heap = () => process.memoryUsage().rss;

describe('answers that never end', { timeout: 30_000 }, () => {
  test('an endless JSON body stops at the cap, with an error that says so', async () => {
    lb.setHandler(() => ({
      kind: 'stream',
      contentType: 'application/json',
      next: endless(KB64, '{"choices":[{"message":{"content":"'),
    }));
    const before = heap();
    await rejects(
      model({ maxBodyBytes: 1024 * 1024 }).complete({ system: 's', prompt: 'p' }),
      'malformed',
      /too large: the JSON answer is larger than 1048576 bytes/,
    );
    assert.ok(heap() - before < 256 * 1024 * 1024);
  });

  test('an endless error body: the status is reported from its first 64 KiB', async () => {
    lb.setHandler(() => ({
      kind: 'stream',
      status: 400,
      contentType: 'application/json',
      next: endless(KB64, '{"error":{"message":"bad things'),
    }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'bad-request', /rejected the request \(HTTP 400/);
  });

  test('SSE data without newlines: an error at the event cap, not a spinning CPU', async () => {
    lb.setHandler(() => ({
      kind: 'stream',
      contentType: 'text/event-stream',
      next: endless(KB64, 'data: {"choices":[{"delta":{"content":"'),
    }));
    await rejects(
      model({ maxEventBytes: 512 * 1024 }).complete({ system: 's', prompt: 'p' }),
      'malformed',
      /a stream line is longer than 524288 bytes/,
    );
  });

  test('keep-alive comments forever: the inactivity timeout fires (comments are not progress)', async () => {
    lb.setHandler(() => ({
      kind: 'stream',
      contentType: 'text/event-stream',
      next: endless(': keep-alive\n\n'),
      intervalMs: 50,
    }));
    await rejects(
      model({ timeoutMs: 400 }).complete({ system: 's', prompt: 'p' }),
      'timeout',
      /sent nothing for 0 s \(keep-alive comments do not count\)/,
    );
  });

  test('a stream that trickles data forever hits the overall deadline', async () => {
    const delta = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`;
    lb.setHandler(() => ({ kind: 'stream', contentType: 'text/event-stream', next: endless(delta), intervalMs: 50 }));
    // The inactivity timeout is far longer than the deadline: whatever pauses a loaded machine makes
    // between two pieces, only the deadline can end this call.
    await rejects(
      model({ timeoutMs: 10_000, deadlineMs: 1200 }).complete({ system: 's', prompt: 'p' }),
      'timeout',
      /did not finish the answer within the 1 s limit for the whole call/,
    );
  });

  test('retries stop when the next wait would pass the deadline', async () => {
    lb.setHandler(() => ({
      kind: 'json',
      status: 503,
      body: { error: { message: 'busy' } },
      headers: { 'retry-after': '2' },
    }));
    // (said before the 2 s wait, never after it)
    await rejects(
      model({ maxRetries: 5, deadlineMs: 1000 }).complete({ system: 's', prompt: 'p' }),
      'timeout',
      /HTTP 503: busy\. \(gave up after 1 attempt: another would pass the 1 s limit/,
    );
  });
});

describe('redirects', () => {
  test('within the origin: followed, key and transcript sent to the new path', async () => {
    lb.requests.length = 0;
    lb.setHandler((r) =>
      r.path === '/v1/chat/completions'
        ? { kind: 'redirect', status: 308, location: '/v2/chat/completions' }
        : completionSse('MOVED OK'),
    );
    const res = await model().complete({ system: 's', prompt: 'p' });
    assert.equal(res.text, 'MOVED OK');
    assert.deepStrictEqual(
      lb.requests.map((r) => r.path),
      ['/v1/chat/completions', '/v2/chat/completions'],
    );
    assert.equal(lb.requests[1].headers.authorization, 'Bearer sk-secret');
    assert.equal(lb.requests[1].body.messages[1].content, 'p');
  });

  test('to another origin: refused with a clear error; the other origin receives nothing', async () => {
    other.requests.length = 0;
    lb.setHandler(() => ({ kind: 'redirect', status: 307, location: `${other.url}/chat/completions` }));
    await rejects(
      model().complete({ system: 's', prompt: 'THE TRANSCRIPT' }),
      'redirect',
      new RegExp(
        `redirected the request to http://127\\.0\\.0\\.1:${other.port}; pi-tree does not send the transcript or the API key to another origin`,
      ),
    );
    assert.equal(other.requests.length, 0);
  });

  test('to another origin when the caller allows it: followed, without the API key', async () => {
    other.requests.length = 0;
    lb.setHandler(() => ({ kind: 'redirect', status: 307, location: `${other.url}/chat/completions` }));
    const asked: string[] = [];
    const res = await model({
      stream: false,
      allowCrossOriginRedirect: (_from, to) => (asked.push(to.origin), true),
    }).complete({ system: 's', prompt: 'p' });
    assert.equal(res.text, 'FROM THE OTHER ORIGIN');
    assert.deepStrictEqual(asked, [`http://127.0.0.1:${other.port}`]);
    assert.equal(other.requests.length, 1);
    assert.equal(other.requests[0].headers.authorization, undefined);
  });
});
