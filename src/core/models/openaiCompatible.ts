// A SummaryModel for any OpenAI-compatible Chat Completions endpoint (Ollama, LM Studio, vLLM, OpenAI):
// streaming (SSE) or plain JSON, an inactivity timeout, cancellation, retries with exponential backoff
// on 429 and 5xx (Retry-After honoured), and errors that say what to fix. Uses Node's built-in fetch.
import { SummaryAbortedError, SummaryModelError, type SummaryModel, type SummaryRequest, type SummaryResponse } from '../summary/model.js';
import type { Usage } from '../types.js';

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
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** `<base>/chat/completions`, unless the URL already names that path. */
export function chatCompletionsUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new SummaryModelError('not-found', `The endpoint "${baseUrl}" is not a valid URL; use e.g. http://127.0.0.1:11434/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SummaryModelError('not-found', `The endpoint "${baseUrl}" must start with http:// or https://`);
  }
  if (!/\/chat\/completions\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url;
}

/** pi-ai's parseChunkUsage + calculateCost (api/openai-completions.js, models.js) for a model without prices. */
export function mapOpenAIUsage(raw: Obj): Usage {
  const details = (raw.prompt_tokens_details ?? undefined) as Obj | undefined;
  const promptTokens = (raw.prompt_tokens as number) || 0;
  const cacheRead = ((details?.cached_tokens ?? raw.prompt_cache_hit_tokens ?? raw.cached_tokens ?? 0) as number) || 0;
  const cacheWrite = (details?.cache_write_tokens as number) || 0;
  const input = Math.max(0, promptTokens - cacheRead - cacheWrite);
  const output = (raw.completion_tokens as number) || 0;
  const completionDetails = raw.completion_tokens_details as Obj | undefined;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    reasoning: (completionDetails?.reasoning_tokens as number) || (raw.reasoning_tokens as number) || 0,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, totalFromProvider: false },
  };
}

/** pi-ai's mapStopReason; unknown reasons are errors. */
function mapFinish(reason: unknown): { stopReason: string; error?: string } {
  if (reason === null || reason === undefined || reason === 'stop' || reason === 'end') return { stopReason: 'stop' };
  if (reason === 'length') return { stopReason: 'length' };
  if (reason === 'tool_calls' || reason === 'function_call') return { stopReason: 'toolUse' };
  return { stopReason: 'error', error: `the endpoint stopped with finish_reason "${String(reason)}"` };
}

class Retryable extends Error {
  constructor(
    readonly error: SummaryModelError,
    /** Server-requested delay in ms, if any. */
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

/** Retry-After (seconds or HTTP date) or OpenAI's retry-after-ms, in ms. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const msHeader = headers.get('retry-after-ms');
  if (msHeader && /^\d+(\.\d+)?$/.test(msHeader.trim())) return Math.ceil(Number(msHeader));
  const v = headers.get('retry-after');
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
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

function short(s: string, n = 300): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

export class OpenAICompatibleModel implements SummaryModel {
  readonly id: string;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;
  readonly url: URL;

  constructor(private readonly opts: OpenAICompatibleOptions) {
    this.url = chatCompletionsUrl(opts.baseUrl);
    if (!opts.model.trim()) throw new SummaryModelError('model-not-found', 'No model name given; set the model the endpoint should use (e.g. "llama3.2").');
    this.id = `${opts.model} @ ${this.url.host}`;
    this.contextWindow = opts.contextWindow ?? 0;
    this.maxOutputTokens = opts.maxOutputTokens || undefined;
  }

  private get maxTokensField(): 'max_tokens' | 'max_completion_tokens' {
    return this.opts.maxTokensField ?? (this.url.hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens');
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
    const payload = JSON.stringify(this.body(req));
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(req, payload);
      } catch (e) {
        if (!(e instanceof Retryable)) throw e;
        if (attempt >= maxRetries) {
          const tries = attempt + 1;
          throw new SummaryModelError(e.error.code, `${e.error.message}${tries > 1 ? ` (gave up after ${tries} attempts)` : ''}`, e.error.status);
        }
        const wait = e.retryAfterMs ?? base * 2 ** attempt;
        if (wait > cap) {
          throw new SummaryModelError(e.error.code, `${e.error.message}; the endpoint asks to wait ${Math.ceil(wait / 1000)} s before retrying`, e.error.status);
        }
        await sleep(wait, req.signal);
      }
    }
  }

  private async attempt(req: SummaryRequest, payload: string): Promise<SummaryResponse> {
    if (req.signal?.aborted) throw new SummaryAbortedError();
    const controller = new AbortController();
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
    };
    const onAbort = () => controller.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const fail = (e: unknown): never => {
      if (e instanceof SummaryModelError || e instanceof Retryable) throw e;
      if (req.signal?.aborted) throw new SummaryAbortedError();
      if (timedOut) {
        throw new SummaryModelError('timeout', `${this.url.origin} sent nothing for ${Math.round(timeoutMs / 1000)} s; the model may still be loading or too slow. Raise the timeout or try again.`);
      }
      throw this.networkError(e);
    };
    arm();
    try {
      let res: Response;
      try {
        res = await fetch(this.url, { method: 'POST', headers: this.headers(), body: payload, signal: controller.signal });
      } catch (e) {
        return fail(e);
      }
      arm();
      if (!res.ok) {
        let text = '';
        try {
          text = await res.text();
        } catch (e) {
          return fail(e);
        }
        throw this.httpError(res, text);
      }
      const type = res.headers.get('content-type') ?? '';
      try {
        if (type.includes('text/event-stream')) return await this.readStream(res, req, arm);
        return this.readJson(await res.text());
      } catch (e) {
        return fail(e);
      }
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream, application/json', ...this.opts.headers };
    if (this.opts.apiKey) h.authorization = `Bearer ${this.opts.apiKey}`;
    return h;
  }

  private networkError(e: unknown): SummaryModelError | Retryable {
    const code = errorCode(e);
    const where = this.url.origin;
    if (code === 'ECONNREFUSED') {
      return new SummaryModelError('connection', `Could not connect to ${where} (connection refused). Is the server running, and is the endpoint URL right?`);
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SummaryModelError('connection', `The host "${this.url.hostname}" was not found. Check the endpoint URL.`);
    if (code === 'CERT_HAS_EXPIRED' || code?.startsWith('ERR_TLS') || code?.includes('CERT')) {
      return new SummaryModelError('connection', `TLS error talking to ${where} (${code}). Check the endpoint URL and its certificate.`);
    }
    // A dropped connection is usually transient: worth another attempt.
    const msg = e instanceof Error ? e.message : String(e);
    return new Retryable(new SummaryModelError('connection', `The connection to ${where} failed (${code ?? short(msg, 120)}).`));
  }

  private httpError(res: Response, body: string): SummaryModelError | Retryable {
    let detail = '';
    let code = '';
    try {
      const j = JSON.parse(body) as Obj;
      const err = (j.error ?? j) as Obj | string;
      if (typeof err === 'string') detail = err;
      else {
        detail = typeof err.message === 'string' ? err.message : typeof j.message === 'string' ? (j.message as string) : '';
        code = typeof err.code === 'string' ? err.code : typeof err.type === 'string' ? err.type : '';
      }
    } catch {
      detail = body;
    }
    const said = detail ? `: ${short(detail)}` : '';
    const s = res.status;
    const where = this.url.origin;
    if (s === 401 || s === 403) {
      return new SummaryModelError('auth', this.opts.apiKey ? `${where} refused the API key (HTTP ${s}${said}). Set a valid key.` : `${where} needs an API key (HTTP ${s}${said}). Set one.`, s);
    }
    if (s === 404 || code === 'model_not_found') {
      if (code === 'model_not_found' || /model/i.test(detail)) {
        return new SummaryModelError('model-not-found', `The endpoint does not know the model "${this.opts.model}" (HTTP ${s}${said}). Check the model name (Ollama: pull it first).`, s);
      }
      return new SummaryModelError('not-found', `${this.url.href} does not exist (HTTP 404). Check the endpoint URL; OpenAI-compatible APIs usually end in /v1.`, s);
    }
    if (s === 429) return new Retryable(new SummaryModelError('rate-limit', `${where} is rate limiting requests (HTTP 429${said}).`, s), retryAfterMs(res.headers));
    if (s >= 500) return new Retryable(new SummaryModelError('server', `${where} failed with HTTP ${s}${said}.`, s), retryAfterMs(res.headers));
    return new SummaryModelError('bad-request', `${where} rejected the request (HTTP ${s}${said}).`, s);
  }

  private readJson(text: string): SummaryResponse {
    let j: Obj;
    try {
      j = JSON.parse(text) as Obj;
    } catch {
      throw new SummaryModelError('malformed', `The endpoint's answer is not JSON (${short(text, 120) || 'empty'}). Is the URL an OpenAI-compatible API?`);
    }
    if (j.error) throw new SummaryModelError('server', `The endpoint reported an error: ${short(JSON.stringify(j.error))}`);
    const choice = Array.isArray(j.choices) ? (j.choices[0] as Obj | undefined) : undefined;
    const message = choice?.message as Obj | undefined;
    if (!choice || !message || (message.content !== null && message.content !== undefined && typeof message.content !== 'string')) {
      throw new SummaryModelError('malformed', `The endpoint's answer has no choices[0].message.content (${short(text, 120)}). Is the URL an OpenAI-compatible Chat Completions API?`);
    }
    const finish = mapFinish(choice.finish_reason ?? (Array.isArray(message.tool_calls) && message.tool_calls.length ? 'tool_calls' : 'stop'));
    if (finish.error) throw new SummaryModelError('server', `Summary failed: ${finish.error}`);
    const usage = j.usage && typeof j.usage === 'object' ? mapOpenAIUsage(j.usage as Obj) : undefined;
    return { text: (message.content as string | null) ?? '', usage, stopReason: finish.stopReason };
  }

  private async readStream(res: Response, req: SummaryRequest, arm: () => void): Promise<SummaryResponse> {
    if (!res.body) throw new SummaryModelError('malformed', 'The endpoint sent an empty stream.');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let data: string[] = [];
    let text = '';
    let finish: unknown = undefined;
    let sawFinish = false;
    let usage: Usage | undefined;
    let done = false;
    let toolCall = false;
    const dispatch = () => {
      if (!data.length) return;
      const payload = data.join('\n');
      data = [];
      if (payload.trim() === '[DONE]') {
        done = true;
        return;
      }
      let chunk: Obj;
      try {
        chunk = JSON.parse(payload) as Obj;
      } catch {
        throw new SummaryModelError('malformed', `The endpoint sent a stream event that is not JSON (${short(payload, 120)}).`);
      }
      if (chunk.error) throw new SummaryModelError('server', `The endpoint reported an error mid-stream: ${short(JSON.stringify(chunk.error))}`);
      if (chunk.usage && typeof chunk.usage === 'object') usage = mapOpenAIUsage(chunk.usage as Obj);
      const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Obj | undefined) : undefined;
      if (!choice) return;
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
    };
    const line = (l: string) => {
      if (l.endsWith('\r')) l = l.slice(0, -1);
      if (l === '') return dispatch();
      if (l.startsWith(':')) return; // SSE comment / keep-alive
      const colon = l.indexOf(':');
      const field = colon < 0 ? l : l.slice(0, colon);
      let value = colon < 0 ? '' : l.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
    };
    try {
      while (!done) {
        const { value, done: end } = await reader.read();
        if (end) break;
        arm();
        buf += decoder.decode(value, { stream: true });
        let nl: number;
        while (!done && (nl = buf.indexOf('\n')) >= 0) {
          line(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
      }
      if (!done) {
        buf += decoder.decode();
        if (buf) line(buf);
        dispatch();
      }
    } finally {
      reader.cancel().catch(() => {});
    }
    if (!done && !sawFinish) {
      // Neither [DONE] nor a finish_reason: the stream was cut off, so the text may be partial.
      throw new Retryable(new SummaryModelError('connection', `The stream from ${this.url.origin} ended before the answer was complete.`));
    }
    const mapped = mapFinish(finish ?? (toolCall ? 'tool_calls' : 'stop'));
    if (mapped.error) throw new SummaryModelError('server', `Summary failed: ${mapped.error}`);
    return { text, usage, stopReason: mapped.stopReason };
  }
}
