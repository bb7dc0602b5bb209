// What an OpenAI-compatible endpoint's failures mean to the user: an HTTP status or a network error
// turned into a SummaryModelError that says what to fix, or into a Retryable when another attempt may
// succeed (429, 5xx, a dropped connection), with the delay the server asked for.
import { SummaryModelError } from '../summary/model.js';

type Obj = Record<string, unknown>;

/** A failure worth another attempt, after `retryAfterMs` when the server named a delay. */
export class Retryable extends Error {
  constructor(
    readonly error: SummaryModelError,
    /** Server-requested delay in ms, if any. */
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

/** What the errors need to know of the endpoint. */
export interface Endpoint {
  url: URL;
  model: string;
  hasKey: boolean;
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

/** `s` on one line, cut at `n` characters. */
export function short(s: string, n = 300): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

/** The system error code of `e` or of its causes (fetch wraps the socket's error). */
function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A failure before any answer: refused, unknown host and TLS are final; a dropped connection is retried. */
export function networkError(e: unknown, { url }: Endpoint): SummaryModelError | Retryable {
  const code = errorCode(e);
  const where = url.origin;
  if (code === 'ECONNREFUSED') {
    return new SummaryModelError(
      'connection',
      `Could not connect to ${where} (connection refused). Is the server running, and is the endpoint URL right?`,
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new SummaryModelError('connection', `The host "${url.hostname}" was not found. Check the endpoint URL.`);
  if (code === 'CERT_HAS_EXPIRED' || code?.startsWith('ERR_TLS') || code?.includes('CERT')) {
    return new SummaryModelError(
      'connection',
      `TLS error talking to ${where} (${code}). Check the endpoint URL and its certificate.`,
    );
  }
  // A dropped connection is usually transient: worth another attempt.
  const msg = e instanceof Error ? e.message : String(e);
  return new Retryable(
    new SummaryModelError('connection', `The connection to ${where} failed (${code ?? short(msg, 120)}).`),
  );
}

/** The error body's message and code, in OpenAI's shape or a bare one. */
function errorDetail(body: string): { detail: string; code: string } {
  try {
    const j = JSON.parse(body) as Obj;
    const err = (j.error ?? j) as Obj | string;
    if (typeof err === 'string') return { detail: err, code: '' };
    const detail =
      typeof err.message === 'string' ? err.message : typeof j.message === 'string' ? (j.message as string) : '';
    const code = typeof err.code === 'string' ? err.code : typeof err.type === 'string' ? err.type : '';
    return { detail, code };
  } catch {
    return { detail: body, code: '' };
  }
}

/** An answer with an HTTP error status. */
export function httpError(res: Response, body: string, ep: Endpoint): SummaryModelError | Retryable {
  const { detail, code } = errorDetail(body);
  const said = detail ? `: ${short(detail)}` : '';
  const s = res.status;
  const where = ep.url.origin;
  if (s === 401 || s === 403) {
    return new SummaryModelError(
      'auth',
      ep.hasKey
        ? `${where} refused the API key (HTTP ${s}${said}). Set a valid key.`
        : `${where} needs an API key (HTTP ${s}${said}). Set one.`,
      s,
    );
  }
  if (s === 404 || code === 'model_not_found') {
    if (code === 'model_not_found' || /model/i.test(detail)) {
      return new SummaryModelError(
        'model-not-found',
        `The endpoint does not know the model "${ep.model}" (HTTP ${s}${said}). Check the model name (Ollama: pull it first).`,
        s,
      );
    }
    return new SummaryModelError(
      'not-found',
      `${ep.url.href} does not exist (HTTP 404). Check the endpoint URL; OpenAI-compatible APIs usually end in /v1.`,
      s,
    );
  }
  if (s === 429)
    return new Retryable(
      new SummaryModelError('rate-limit', `${where} is rate limiting requests (HTTP 429${said}).`, s),
      retryAfterMs(res.headers),
    );
  if (s >= 500)
    return new Retryable(
      new SummaryModelError('server', `${where} failed with HTTP ${s}${said}.`, s),
      retryAfterMs(res.headers),
    );
  return new SummaryModelError('bad-request', `${where} rejected the request (HTTP ${s}${said}).`, s);
}
