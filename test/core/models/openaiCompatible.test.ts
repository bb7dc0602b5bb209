// The OpenAI-compatible client against a real loopback HTTP server: request shape, streaming and plain
// JSON answers, usage mapping, retries, timeouts, cancellation and the errors users see.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chatCompletionsUrl, OpenAICompatibleModel } from '../../../src/core/models/openaiCompatible.js';
import { retryAfterMs } from '../../../src/core/models/openaiErrors.js';
import { mapOpenAIUsage } from '../../../src/core/models/openaiUsage.js';
import { SummaryModelError } from '../../../src/core/summary/model.js';
import {
  closedPort,
  completionJson,
  completionSse,
  startLoopback,
  type Loopback,
} from '../../support/loopbackOpenAI.js';

let lb: Loopback;
before(async () => {
  lb = await startLoopback();
});
after(() => lb.close());

function model(extra: Partial<ConstructorParameters<typeof OpenAICompatibleModel>[0]> = {}) {
  return new OpenAICompatibleModel({ baseUrl: lb.url, model: 'qwen3:8b', retryBaseMs: 10, timeoutMs: 2000, ...extra });
}

async function rejects(p: Promise<unknown>, code: string, re: RegExp): Promise<SummaryModelError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SummaryModelError, `expected SummaryModelError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('request', () => {
  test('streams by default and sends model, system + user messages, max_tokens and the key', async () => {
    lb.requests.length = 0;
    lb.setHandler(() => completionSse('Hello there, world.', { pieces: 4 }));
    const progress: number[] = [];
    const m = model({ apiKey: 'sk-test', maxOutputTokens: 2048 });
    const res = await m.complete({ system: 'SYS', prompt: 'PROMPT', onProgress: (n) => progress.push(n) });
    assert.equal(res.text, 'Hello there, world.');
    assert.equal(res.stopReason, 'stop');
    assert.deepEqual(res.usage, {
      input: 1000,
      output: 80,
      cacheRead: 200,
      cacheWrite: 0,
      reasoning: 0,
      totalTokens: 1280,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, totalFromProvider: false },
    });
    assert.deepEqual(progress, [5, 10, 15, 19]);
    assert.equal(lb.requests.length, 1);
    const r = lb.requests[0];
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, 'Bearer sk-test');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.body, {
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'SYS' },
        { role: 'user', content: 'PROMPT' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 2048,
    });
  });

  test('non-streaming: plain JSON body, no stream_options, no key header without a key', async () => {
    lb.requests.length = 0;
    lb.setHandler(() => completionJson('Plain answer'));
    const res = await model({ stream: false }).complete({ system: 's', prompt: 'p', maxTokens: 99 });
    assert.equal(res.text, 'Plain answer');
    assert.equal(res.usage?.output, 80);
    const r = lb.requests[0];
    assert.equal(r.headers.authorization, undefined);
    assert.deepEqual(r.body, {
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'p' },
      ],
      stream: false,
      max_tokens: 99,
    });
  });

  test('a JSON answer to a streaming request is read as JSON (servers that ignore stream)', async () => {
    lb.setHandler(() => completionJson('ignored stream flag'));
    assert.equal((await model().complete({ system: 's', prompt: 'p' })).text, 'ignored stream flag');
  });

  test('api.openai.com gets max_completion_tokens; others max_tokens; field can be forced', () => {
    const o = new OpenAICompatibleModel({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      maxOutputTokens: 10,
    });
    assert.deepEqual(
      Object.keys(o.body({ system: 's', prompt: 'p' })).filter((k) => k.startsWith('max')),
      ['max_completion_tokens'],
    );
    const v = model({ maxTokensField: 'max_completion_tokens', maxOutputTokens: 5 });
    assert.equal(v.body({ system: 's', prompt: 'p' }).max_completion_tokens, 5);
  });

  test('SSE split at arbitrary byte boundaries, CRLF-free comments and multi-byte text', async () => {
    const text = 'Zusammenfassung: Ärger mit 🌳 Bäumen — fertig.';
    lb.setHandler(() => ({ ...completionSse(text, { pieces: 7 }), chunkBytes: 5 }) as never);
    assert.equal((await model().complete({ system: 's', prompt: 'p' })).text, text);
  });

  test('URL handling', () => {
    assert.equal(chatCompletionsUrl('http://h:1/v1').href, 'http://h:1/v1/chat/completions');
    assert.equal(chatCompletionsUrl('http://h:1/v1/').href, 'http://h:1/v1/chat/completions');
    assert.equal(chatCompletionsUrl('http://h:1/v1/chat/completions').href, 'http://h:1/v1/chat/completions');
    assert.throws(() => chatCompletionsUrl('localhost:11434'), /must start with http/);
    assert.throws(() => chatCompletionsUrl('not a url'), /not a valid URL/);
  });

  test('usage mapping follows pi-ai (cached tokens are cache reads, reasoning kept)', () => {
    assert.deepEqual(
      mapOpenAIUsage({
        prompt_tokens: 50,
        completion_tokens: 7,
        completion_tokens_details: { reasoning_tokens: 3 },
        prompt_cache_hit_tokens: 10,
      }),
      {
        input: 40,
        output: 7,
        cacheRead: 10,
        cacheWrite: 0,
        reasoning: 3,
        totalTokens: 57,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, totalFromProvider: false },
      },
    );
  });
});

describe('answers that are not a summary', () => {
  test('finish_reason length is reported as stopReason length', async () => {
    lb.setHandler(() => completionSse('cut off', { finish: 'length' }));
    assert.equal((await model().complete({ system: 's', prompt: 'p' })).stopReason, 'length');
  });

  test('content_filter is an error', async () => {
    lb.setHandler(() => completionJson('x', { finish: 'content_filter' }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'server', /content_filter/);
  });

  test('malformed JSON body', async () => {
    lb.setHandler(() => ({ kind: 'text', body: '{"choices": [', headers: { 'content-type': 'application/json' } }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'malformed', /not JSON/);
  });

  test('JSON without choices', async () => {
    lb.setHandler(() => ({ kind: 'json', body: { object: 'list', data: [] } }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'malformed', /choices\[0\]\.message\.content/);
  });

  test('malformed SSE event', async () => {
    lb.setHandler(() => ({ kind: 'sse', events: ['{"choices":[{"delta":{"content":"a"}}]}', '{oops'] }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'malformed', /not JSON/);
  });

  test('error event inside the stream', async () => {
    lb.setHandler(() => ({ kind: 'sse', events: [{ error: { message: 'model crashed' } }] }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'server', /model crashed/);
  });
});

describe('HTTP errors say what to fix', () => {
  test('401 without a key / with a bad key', async () => {
    lb.setHandler(() => ({
      kind: 'json',
      status: 401,
      body: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } },
    }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'auth', /needs an API key.*Incorrect API key/);
    const e = await rejects(
      model({ apiKey: 'sk-secret-value' }).complete({ system: 's', prompt: 'p' }),
      'auth',
      /refused the API key/,
    );
    assert.doesNotMatch(e.message, /sk-secret-value/);
  });

  test('404 unknown model (Ollama and OpenAI shapes) vs 404 wrong URL', async () => {
    lb.setHandler(() => ({
      kind: 'json',
      status: 404,
      body: { error: { message: 'model "qwen3:8b" not found, try pulling it first', type: 'api_error' } },
    }));
    await rejects(
      model().complete({ system: 's', prompt: 'p' }),
      'model-not-found',
      /does not know the model "qwen3:8b"/,
    );
    lb.setHandler(() => ({
      kind: 'json',
      status: 404,
      body: { error: { message: 'The model `x` does not exist', code: 'model_not_found' } },
    }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'model-not-found', /Check the model name/);
    lb.setHandler(() => ({ kind: 'text', status: 404, body: '404 page not found' }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'not-found', /does not exist \(HTTP 404\).*\/v1/);
  });

  test('400 passes the server message on', async () => {
    lb.setHandler(() => ({ kind: 'json', status: 400, body: { error: { message: 'context length exceeded' } } }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'bad-request', /HTTP 400: context length exceeded/);
  });

  test('connection refused', async () => {
    const port = await closedPort();
    const m = new OpenAICompatibleModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', retryBaseMs: 1 });
    await rejects(m.complete({ system: 's', prompt: 'p' }), 'connection', /connection refused.*server running/);
  });
});

describe('retries, timeouts, cancellation', () => {
  test('5xx is retried with exponential backoff, then reported', async () => {
    lb.requests.length = 0;
    lb.setHandler(() => ({ kind: 'json', status: 503, body: { error: { message: 'overloaded' } } }));
    await rejects(
      model({ maxRetries: 3, retryBaseMs: 20 }).complete({ system: 's', prompt: 'p' }),
      'server',
      /HTTP 503: overloaded.*after 4 attempts/,
    );
    assert.equal(lb.requests.length, 4);
    const gaps = lb.requests.slice(1).map((r, i) => r.at - lb.requests[i].at);
    // 20, 40, 80 ms backoff (timer granularity allows a little slack)
    assert.ok(gaps[0] >= 18 && gaps[1] >= 38 && gaps[2] >= 78, `gaps ${gaps}`);
  });

  test('429 honours Retry-After, then succeeds', async () => {
    lb.requests.length = 0;
    lb.setHandler((_r, n) =>
      n === 1
        ? { kind: 'json', status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '1' } }
        : completionSse('after wait'),
    );
    const res = await model({ retryBaseMs: 1 }).complete({ system: 's', prompt: 'p' });
    assert.equal(res.text, 'after wait');
    assert.equal(lb.requests.length, 2);
    assert.ok(lb.requests[1].at - lb.requests[0].at >= 990, `waited ${lb.requests[1].at - lb.requests[0].at} ms`);
  });

  test('a Retry-After longer than the cap fails at once', async () => {
    lb.requests.length = 0;
    lb.setHandler(() => ({ kind: 'json', status: 429, body: {}, headers: { 'retry-after': '3600' } }));
    await rejects(model().complete({ system: 's', prompt: 'p' }), 'rate-limit', /asks to wait 3600 s/);
    assert.equal(lb.requests.length, 1);
  });

  test('Retry-After forms', () => {
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '150' })), 150);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000), 6000);
    assert.equal(retryAfterMs(new Headers({})), undefined);
  });

  test('no answer within the timeout', async () => {
    lb.setHandler(() => ({ kind: 'hang' }));
    await rejects(model({ timeoutMs: 300 }).complete({ system: 's', prompt: 'p' }), 'timeout', /sent nothing for/);
  });

  test('a stream that stalls mid-answer times out (inactivity, not total time)', async () => {
    lb.setHandler(() => completionSse('partial answer here', { pieces: 3, stopAfterPieces: 2, hang: true }));
    await rejects(
      model({ timeoutMs: 300, maxRetries: 0 }).complete({ system: 's', prompt: 'p' }),
      'timeout',
      /sent nothing/,
    );
    // A slow but steady stream is fine even when its total time exceeds the timeout (pieces 50 ms
    // apart, 1.5 s in all, against 1 s: a loaded machine may delay a piece, not by 20 times).
    lb.setHandler(() =>
      completionSse('a slow but steady stream of thirty pieces or so, one after the other', {
        pieces: 30,
        delayMs: 50,
      }),
    );
    const t0 = Date.now();
    assert.equal(
      (await model({ timeoutMs: 1000 }).complete({ system: 's', prompt: 'p' })).text,
      'a slow but steady stream of thirty pieces or so, one after the other',
    );
    assert.ok(Date.now() - t0 > 1000, 'the stream took longer than the timeout');
  });

  test('a stream cut off without finish or [DONE] is retried, then reported', async () => {
    lb.requests.length = 0;
    lb.setHandler(() => completionSse('cut', { stopAfterPieces: 1 }));
    await rejects(
      model({ maxRetries: 1 }).complete({ system: 's', prompt: 'p' }),
      'connection',
      /ended before the answer was complete.*2 attempts/,
    );
    assert.equal(lb.requests.length, 2);
  });

  test('cancel mid-stream rejects with an AbortError at once', async () => {
    lb.setHandler(() =>
      completionSse('a long answer that never finishes', { pieces: 5, stopAfterPieces: 2, hang: true }),
    );
    const ac = new AbortController();
    const p = model({ timeoutMs: 10_000 }).complete({
      system: 's',
      prompt: 'p',
      signal: ac.signal,
      onProgress: () => ac.abort(),
    });
    await assert.rejects(p, (e: Error) => e.name === 'AbortError');
  });

  // The wait is 30 s: a cancel that did not end it would run into this test's 20 s timeout.
  test('cancel during a retry wait', { timeout: 20_000 }, async () => {
    lb.setHandler(() => ({ kind: 'json', status: 500, body: {} }));
    const ac = new AbortController();
    const before = lb.requests.length;
    const waits: number[] = [];
    const onRetry = (waitMs: number) => (waits.push(waitMs), ac.abort());
    await assert.rejects(
      model({ retryBaseMs: 30_000 }).complete({ system: 's', prompt: 'p', signal: ac.signal, onRetry }),
      (e: Error) => e.name === 'AbortError',
    );
    assert.deepEqual(waits, [30_000], 'cancelled while waiting for the first retry');
    assert.equal(lb.requests.length - before, 1, 'no second attempt');
  });
});
