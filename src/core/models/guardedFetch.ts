// fetch() that follows redirects itself: within the endpoint's origin as fetch would, but a redirect
// to another origin is refused unless the caller allows it (the request body is the user's
// transcript, and the API key is bound to the endpoint's origin; fetch would re-send both to
// wherever the server points). When allowed, the Authorization header is not sent on.

export class CrossOriginRedirectError extends Error {
  override name = 'CrossOriginRedirectError';
  constructor(
    readonly from: URL,
    readonly to: URL,
  ) {
    super(`${from.origin} redirected the request to ${to.origin}`);
  }
}

export type RedirectPolicy = (from: URL, to: URL) => boolean | Promise<boolean>;

const MAX_REDIRECTS = 5;

export async function guardedFetch(
  url: URL,
  init: RequestInit & { headers: Record<string, string> },
  allowCrossOrigin?: RedirectPolicy,
): Promise<Response> {
  let current = url;
  let headers: Record<string, string> = init.headers;
  for (let hop = 0; ; hop++) {
    const res = await fetch(current, { ...init, headers, redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || res.status === 304 || !location) return res;
    await res.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new Error(`a redirect to an invalid URL (${location.slice(0, 200)})`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new Error(`a redirect to a ${next.protocol} URL`);
    if (next.origin !== url.origin) {
      if (!(await allowCrossOrigin?.(current, next))) throw new CrossOriginRedirectError(current, next);
      // Header names are case-insensitive: drop the key however it is spelled.
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    }
    current = next;
  }
}
