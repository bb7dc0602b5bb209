// The request/reply stack both webviews (the tree and the compare view) share with the host, as
// vscode-hexeditor's MessageHandler: the webview sends `{type:'request', seq, body}` and gets exactly one
// `{type:'reply', seq, ok, data | error}`, typed by the body's kind; the host validates every message with
// the same primitives before it looks at it, then runs the request's handler from one table per view
// (HandlerTable). Pure: the webview imports it, and so does the host.

/** The host's answer to one request. */
export type Reply =
  { type: 'reply'; seq: number; ok: true; data: unknown } | { type: 'reply'; seq: number; ok: false; error: string };

export type Validated<T> = { ok: true; value: T } | { ok: false; reason: string };

export class RequestError extends Error {}

/**
 * The webview end: numbers requests, settles each with its reply. `track` wraps the pending promise
 * (the tree counts work in flight for its idle signal).
 */
export class RequestClient<Body extends { kind: string }, Replies extends Record<Body['kind'], unknown>> {
  private seq = 0;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; kind: string }
  >();

  constructor(
    private readonly post: (m: { type: 'request'; seq: number; body: Body }) => void,
    private readonly track: <T>(p: Promise<T>) => Promise<T> = (p) => p,
  ) {}

  request<B extends Body>(body: B): Promise<Replies[B['kind']]> {
    const seq = ++this.seq;
    return this.track(
      new Promise((resolve, reject) => {
        this.pending.set(seq, { resolve: resolve as (v: unknown) => void, reject, kind: body.kind });
        this.post({ type: 'request', seq, body });
      }),
    );
  }

  /** Settles the request a host message answers; false when it is not a reply (the caller dispatches it). */
  settle(m: unknown): boolean {
    if (!isRecord(m) || m.type !== 'reply') return false;
    const p = typeof m.seq === 'number' ? this.pending.get(m.seq) : undefined;
    if (!p) return true;
    this.pending.delete(m.seq as number);
    if (m.ok === true) p.resolve(m.data);
    else p.reject(new RequestError(typeof m.error === 'string' ? m.error : `${p.kind} failed`));
    return true;
  }
}

/**
 * The host end: one handler per request kind of a protocol (its request bodies and its replies by kind),
 * each checked against the reply its kind promises, so a missing kind or a wrong reply does not compile
 * (as GitLens's typed IPC descriptors). `Cx` is what every handler of one panel gets.
 */
export type HandlerTable<Body extends { kind: string }, Replies extends Record<Body['kind'], unknown>, Cx> = {
  [K in Body['kind']]: (body: Extract<Body, { kind: K }>, seq: number, cx: Cx) => Promise<Replies[K]>;
};

/** Runs the handler of `table` for `body.kind` (the body was validated first). */
export function dispatch<Body extends { kind: string }, Replies extends Record<Body['kind'], unknown>, Cx>(
  table: HandlerTable<Body, Replies, Cx>,
  body: Body,
  seq: number,
  cx: Cx,
): Promise<Replies[Body['kind']]> {
  const handler = table[body.kind as Body['kind']] as (b: Body, seq: number, cx: Cx) => Promise<Replies[Body['kind']]>;
  return handler(body, seq, cx);
}

// ---- validation: the webview is untrusted ----

/** An entry id as pi writes them (8 hex) or older files do (uuids, numbers): bounded, no path characters. */
export const ENTRY_ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A plain object (what structured clone delivers); anything with another prototype is refused. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
export const isEntryId = (v: unknown): v is string => typeof v === 'string' && ENTRY_ID_RE.test(v);
/** A non-negative safe integer up to `max`. */
export const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;
export const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
/** The first key of `o` not in `keys`, as a reason; undefined when there is none. */
export function extraKey(o: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of Object.keys(o)) if (!keys.includes(k)) return `unexpected field "${k}"`;
  return undefined;
}

/**
 * A webview message of a type that carries no fields (`ready`), or a request whose body `body` validates;
 * anything else (other types the caller checks first) is refused with its reason.
 */
export function validateRequest<B>(
  m: Record<string, unknown>,
  body: (b: unknown) => Validated<B>,
): Validated<{ type: 'request'; seq: number; body: B }> {
  const extra = extraKey(m, ['type', 'seq', 'body']);
  if (extra) return { ok: false, reason: `request: ${extra}` };
  if (!isCount(m.seq, Number.MAX_SAFE_INTEGER))
    return { ok: false, reason: 'request: seq must be a non-negative integer' };
  const b = body(m.body);
  return b.ok ? { ok: true, value: { type: 'request', seq: m.seq, body: b.value } } : b;
}

/**
 * A panel's message as the compare and variants views send them: `ready`, or a request whose body
 * `body` validates. Anything else is refused with its reason.
 */
export function validatePanelMessage<B>(
  m: unknown,
  body: (b: unknown) => Validated<B>,
): Validated<{ type: 'ready' } | { type: 'request'; seq: number; body: B }> {
  if (!isRecord(m)) return { ok: false, reason: 'message is not an object' };
  if (m.type === 'ready') return validateBare(m, 'ready');
  if (m.type !== 'request') return { ok: false, reason: `unknown message type "${String(m.type).slice(0, 40)}"` };
  return validateRequest(m, body);
}

/**
 * A request body's kind, one of `fields`' own keys (never an inherited name such as "toString"), with no
 * field but `kind` and the ones `fields` lists for it. The caller checks the fields' values.
 */
export function knownKind<K extends string>(
  b: unknown,
  fields: Record<K, readonly string[]>,
): Validated<{ kind: K; body: Record<string, unknown> }> {
  if (!isRecord(b) || typeof b.kind !== 'string' || !Object.prototype.hasOwnProperty.call(fields, b.kind))
    return { ok: false, reason: 'request: unknown kind' };
  const kind = b.kind as K;
  const extra = extraKey(b, ['kind', ...fields[kind]]);
  return extra ? { ok: false, reason: `${kind}: ${extra}` } : { ok: true, value: { kind, body: b } };
}

/** A message with only its `type` (ready, shown). */
export function validateBare<T extends string>(m: Record<string, unknown>, type: T): Validated<{ type: T }> {
  const extra = extraKey(m, ['type']);
  return extra ? { ok: false, reason: `${type}: ${extra}` } : { ok: true, value: { type } };
}
