// A SummaryModel for any OpenAI-compatible Chat Completions endpoint (Ollama, LM Studio, vLLM, OpenAI):
// streaming (SSE) or plain JSON, an inactivity timeout, cancellation, retries with exponential backoff
// on 429 and 5xx (Retry-After honoured), and errors that say what to fix. Uses Node's built-in fetch.
import {
  SummaryAbortedError,
  SummaryModelError,
  type SummaryModel,
  type SummaryRequest,
  type SummaryResponse,
} from '../summary/model.js';
import type { Usage } from '../format/types.js';
import { BodyLimitError, readCapped, readSse } from './boundedBody.js';
import { CrossOriginRedirectError, guardedFetch, type RedirectPolicy } from './guardedFetch.js';
import { httpError, networkError, Retryable, short, type Endpoint } from './openaiErrors.js';
import { mapOpenAIUsage, type ModelPrices } from './openaiUsage.js';

export type { ModelPrices } from './openaiUsage.js';

type Obj = Record<string, unknown>;

export interface OpenAICompatibleOptions {
  /** Base URL up to and including the API version, e.g. http://127.0.0.1:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The model's context window; 0 or absent means pi's default of 128000. */
  contextWindow?: number;
  /** Output cap sent with each request (max_tokens / max_completion_tokens). */
  maxOutputTokens?: number;
  /** Stream the answer with SSE (default true). */
  stream?: boolean;
  /** Give up when the endpoint sends nothing for this long (default 120 s). */
  timeoutMs?: number;
  /** Extra attempts after a 429, a 5xx or a dropped connection (default 3). */
  maxRetries?: number;
  /** First backoff delay; doubled on each retry (default 1000 ms). */
  retryBaseMs?: number;
  /** Longest wait between attempts; a longer Retry-After fails at once (default 60 s). */
  maxRetryDelayMs?: number;
  /** OpenAI's own API wants max_completion_tokens; most compatible servers take max_tokens. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  headers?: Record<string, string>;
  /** The model's prices (USD per million tokens); without them a summary's cost is recorded as 0. */
  prices?: ModelPrices;
  /** Give up when the whole call (all attempts and waits) takes longer than this (default 10 min). */
  deadlineMs?: number;
  /** Largest plain JSON answer read (default 16 MiB); error bodies are read up to 64 KiB. */
  maxBodyBytes?: number;
  /** Largest stream event, and largest whole stream (defaults 4 MiB and 64 MiB). */
  maxEventBytes?: number;
  maxStreamBytes?: number;
  /**
   * Asked when the endpoint redirects to another origin; absent or false refuses (the transcript and
   * the key are never sent there without it). When allowed, the key is still not sent on.
   */
  allowCrossOriginRedirect?: RedirectPolicy;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_DEADLINE_MS = 600_000;
const ERROR_BODY_BYTES = 64 * 1024;

/** `<base>/chat/completions`, unless the URL already names that path. */
export function chatCompletionsUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new SummaryModelError(
      'not-found',
      `The endpoint "${baseUrl}" is not a valid URL; use e.g. http://127.0.0.1:11434/v1`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SummaryModelError('not-found', `The endpoint "${baseUrl}" must start with http:// or https://`);
  }
  if (!/\/chat\/completions\/?$/.test(url.pathname))
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url;
}

/** pi-ai's mapStopReason; unknown reasons are errors. */
function mapFinish(reason: unknown): { stopReason: string; error?: string } {
  if (reason === null || reason === undefined || reason === 'stop' || reason === 'end') return { stopReason: 'stop' };
  if (reason === 'length') return { stopReason: 'length' };
  if (reason === 'tool_calls' || reason === 'function_call') return { stopReason: 'toolUse' };
  return { stopReason: 'error', error: `the endpoint stopped with finish_reason "${String(reason)}"` };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SummaryAbortedError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new SummaryAbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class OpenAICompatibleModel implements SummaryModel {
  readonly id: string;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;
  readonly url: URL;

  constructor(private readonly opts: OpenAICompatibleOptions) {
    this.url = chatCompletionsUrl(opts.baseUrl);
    if (!opts.model.trim())
      throw new SummaryModelError(
        'model-not-found',
        'No model name given; set the model the endpoint should use (e.g. "llama3.2").',
      );
    this.id = `${opts.model} @ ${this.url.host}`;
    this.contextWindow = opts.contextWindow ?? 0;
    this.maxOutputTokens = opts.maxOutputTokens || undefined;
  }

  private get endpoint(): Endpoint {
    return { url: this.url, model: this.opts.model, hasKey: !!this.opts.apiKey };
  }

  private get maxTokensField(): 'max_tokens' | 'max_completion_tokens' {
    return (
      this.opts.maxTokensField ?? (this.url.hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens')
    );
  }

  body(req: SummaryRequest): Obj {
    const stream = this.opts.stream ?? true;
    const body: Obj = {
      model: this.opts.model,
      messages: [
        { role: 'system', content: req.system },
        { role: 'user', content: req.prompt },
      ],
      stream,
    };
    if (stream) body.stream_options = { include_usage: true };
    const max = req.maxTokens ?? this.maxOutputTokens;
    if (max) body[this.maxTokensField] = max;
    return body;
  }

  async complete(req: SummaryRequest): Promise<SummaryResponse> {
    const maxRetries = this.opts.maxRetries ?? 3;
    const base = this.opts.retryBaseMs ?? 1000;
    const cap = this.opts.maxRetryDelayMs ?? 60_000;
    const deadlineMs = this.opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const deadline = Date.now() + deadlineMs;
    const payload = JSON.stringify(this.body(req));
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(req, payload, deadline);
      } catch (e) {
        if (!(e instanceof Retryable)) throw e;
        const tries = attempt + 1;
        if (attempt >= maxRetries) {
          throw new SummaryModelError(
            e.error.code,
            `${e.error.message}${tries > 1 ? ` (gave up after ${tries} attempts)` : ''}`,
            e.error.status,
          );
        }
        const wait = e.retryAfterMs ?? base * 2 ** attempt;
        if (wait > cap) {
          throw new SummaryModelError(
            e.error.code,
            `${e.error.message}; the endpoint asks to wait ${Math.ceil(wait / 1000)} s before retrying`,
            e.error.status,
          );
        }
        if (Date.now() + wait >= deadline) {
          throw new SummaryModelError(
            'timeout',
            `${e.error.message} (gave up after ${tries} attempt${tries > 1 ? 's' : ''}: another would pass the ${Math.round(deadlineMs / 1000)} s limit for the whole call)`,
            e.error.status,
          );
        }
        req.onRetry?.(wait, tries, e.error.message);
        await sleep(wait, req.signal);
      }
    }
  }

  private async attempt(req: SummaryRequest, payload: string, deadline: number): Promise<SummaryResponse> {
    if (req.signal?.aborted) throw new SummaryAbortedError();
    const controller = new AbortController();
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let timedOut: 'idle' | 'deadline' | undefined;
    let timer: NodeJS.Timeout | undefined;
    // Re-armed only by progress (the answer's head, a data event), never by keep-alive comments.
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = 'idle';
        controller.abort();
      }, timeoutMs);
    };
    const overall = setTimeout(
      () => {
        timedOut = 'deadline';
        controller.abort();
      },
      Math.max(0, deadline - Date.now()),
    );
    const onAbort = () => controller.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const where = this.url.origin;
    const fail = (e: unknown): never => {
      if (e instanceof SummaryModelError || e instanceof Retryable) throw e;
      if (req.signal?.aborted) throw new SummaryAbortedError();
      if (timedOut === 'deadline') {
        throw new SummaryModelError(
          'timeout',
          `${where} did not finish the answer within the ${Math.round((this.opts.deadlineMs ?? DEFAULT_DEADLINE_MS) / 1000)} s limit for the whole call; nothing was written.`,
        );
      }
      if (timedOut === 'idle') {
        throw new SummaryModelError(
          'timeout',
          `${where} sent nothing for ${Math.round(timeoutMs / 1000)} s (keep-alive comments do not count); the model may still be loading or too slow. Raise the timeout or try again.`,
        );
      }
      if (e instanceof BodyLimitError)
        throw new SummaryModelError(
          'malformed',
          `The answer from ${where} is too large: ${e.message}. Is the URL an OpenAI-compatible API?`,
        );
      if (e instanceof CrossOriginRedirectError) {
        throw new SummaryModelError(
          'redirect',
          `${e.message}; pi-tree does not send the transcript or the API key to another origin. If ${e.to.origin} is the real endpoint, set it as the endpoint.`,
        );
      }
      throw networkError(e, this.endpoint);
    };
    arm();
    try {
      let res: Response;
      try {
        res = await guardedFetch(
          this.url,
          { method: 'POST', headers: this.headers(), body: payload, signal: controller.signal },
          this.opts.allowCrossOriginRedirect,
        );
      } catch (e) {
        return fail(e);
      }
      arm();
      if (!res.ok) {
        let text = '';
        try {
          text = (await readCapped(res, ERROR_BODY_BYTES)).text;
        } catch (e) {
          return fail(e);
        }
        throw httpError(res, text, this.endpoint);
      }
      const type = res.headers.get('content-type') ?? '';
      try {
        if (type.includes('text/event-stream')) return await this.readStream(res, req, arm);
        const max = this.opts.maxBodyBytes ?? 16 * 1024 * 1024;
        const body = await readCapped(res, max);
        if (body.truncated) throw new BodyLimitError(`the JSON answer is larger than ${max} bytes`);
        return this.readJson(body.text);
      } catch (e) {
        return fail(e);
      }
    } finally {
      clearTimeout(timer);
      clearTimeout(overall);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...this.opts.headers,
    };
    if (this.opts.apiKey) h.authorization = `Bearer ${this.opts.apiKey}`;
    return h;
  }

  private readJson(text: string): SummaryResponse {
    let j: Obj;
    try {
      j = JSON.parse(text) as Obj;
    } catch {
      throw new SummaryModelError(
        'malformed',
        `The endpoint's answer is not JSON (${short(text, 120) || 'empty'}). Is the URL an OpenAI-compatible API?`,
      );
    }
    if (j.error)
      throw new SummaryModelError('server', `The endpoint reported an error: ${short(JSON.stringify(j.error))}`);
    const choice = Array.isArray(j.choices) ? (j.choices[0] as Obj | undefined) : undefined;
    const message = choice?.message as Obj | undefined;
    if (
      !choice ||
      !message ||
      (message.content !== null && message.content !== undefined && typeof message.content !== 'string')
    ) {
      throw new SummaryModelError(
        'malformed',
        `The endpoint's answer has no choices[0].message.content (${short(text, 120)}). Is the URL an OpenAI-compatible Chat Completions API?`,
      );
    }
    const finish = mapFinish(
      choice.finish_reason ?? (Array.isArray(message.tool_calls) && message.tool_calls.length ? 'tool_calls' : 'stop'),
    );
    if (finish.error) throw new SummaryModelError('server', `Summary failed: ${finish.error}`);
    const usage = j.usage && typeof j.usage === 'object' ? mapOpenAIUsage(j.usage as Obj, this.opts.prices) : undefined;
    return { text: (message.content as string | null) ?? '', usage, stopReason: finish.stopReason };
  }

  private async readStream(res: Response, req: SummaryRequest, arm: () => void): Promise<SummaryResponse> {
    if (!res.body) throw new SummaryModelError('malformed', 'The endpoint sent an empty stream.');
    let text = '';
    let finish: unknown = undefined;
    let sawFinish = false;
    let usage: Usage | undefined;
    let done = false;
    let toolCall = false;
    const onData = (payload: string): boolean => {
      if (payload.trim() === '[DONE]') return (done = true);
      arm();
      let chunk: Obj;
      try {
        chunk = JSON.parse(payload) as Obj;
      } catch {
        throw new SummaryModelError(
          'malformed',
          `The endpoint sent a stream event that is not JSON (${short(payload, 120)}).`,
        );
      }
      if (chunk.error)
        throw new SummaryModelError(
          'server',
          `The endpoint reported an error mid-stream: ${short(JSON.stringify(chunk.error))}`,
        );
      if (chunk.usage && typeof chunk.usage === 'object') usage = mapOpenAIUsage(chunk.usage as Obj, this.opts.prices);
      const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Obj | undefined) : undefined;
      if (!choice) return false;
      const delta = choice.delta as Obj | undefined;
      if (typeof delta?.content === 'string' && delta.content) {
        text += delta.content;
        req.onProgress?.(text.length);
      }
      if (Array.isArray(delta?.tool_calls) && delta.tool_calls.length) toolCall = true;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        finish = choice.finish_reason;
        sawFinish = true;
      }
      return false;
    };
    await readSse(
      res.body,
      {
        maxEventBytes: this.opts.maxEventBytes ?? 4 * 1024 * 1024,
        maxStreamBytes: this.opts.maxStreamBytes ?? 64 * 1024 * 1024,
      },
      onData,
    );
    if (!done && !sawFinish) {
      // Neither [DONE] nor a finish_reason: the stream was cut off, so the text may be partial.
      throw new Retryable(
        new SummaryModelError('connection', `The stream from ${this.url.origin} ended before the answer was complete.`),
      );
    }
    const mapped = mapFinish(finish ?? (toolCall ? 'tool_calls' : 'stop'));
    if (mapped.error) throw new SummaryModelError('server', `Summary failed: ${mapped.error}`);
    return { text, usage, stopReason: mapped.stopReason };
  }
}
