// pi's /resume query syntax: whitespace tokens matched fuzzily, "quoted phrases" matched exactly
// (whitespace-normalised; unbalanced quotes fall back to plain tokens), and `re:<pattern>`
// (case-insensitive; an invalid pattern matches nothing). Scores are tiers like pi's: a hit in the
// name beats a hit in the id, messages or cwd, which beats a scattered (fuzzy) hit. Lower is better.
// Messages are all the session's message text when the caller has read it (sessionText.ts, as pi's
// allMessagesText), else the first message.

export interface Searchable {
  id: string;
  name?: string;
  cwd: string;
  firstMessage: string;
  /** Every user and assistant message's text (pi's allMessagesText), when read. */
  text?: { raw: string; lower: string; normalized: string };
}

export type QueryToken = { kind: 'fuzzy' | 'phrase'; value: string };
export type ParsedQuery =
  { mode: 'tokens'; tokens: QueryToken[] } | { mode: 'regex'; regex: RegExp | null; error?: string };

const TIER = 1_000_000;
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

export function parseQuery(query: string): ParsedQuery {
  const q = query.trim();
  if (q.startsWith('re:')) {
    const pattern = q.slice(3).trim();
    if (!pattern) return { mode: 'regex', regex: null, error: 'Empty regex' };
    try {
      return { mode: 'regex', regex: new RegExp(pattern, 'i') };
    } catch (e) {
      return { mode: 'regex', regex: null, error: (e as Error).message };
    }
  }
  const tokens: QueryToken[] = [];
  let buf = '';
  let quoted = false;
  const flush = (kind: QueryToken['kind']) => {
    const v = buf.trim();
    buf = '';
    if (v) tokens.push({ kind, value: v });
  };
  for (const ch of q) {
    if (ch === '"') {
      flush(quoted ? 'phrase' : 'fuzzy');
      quoted = !quoted;
    } else if (!quoted && /\s/.test(ch)) flush('fuzzy');
    else buf += ch;
  }
  if (quoted)
    return {
      mode: 'tokens',
      tokens: q
        .split(/\s+/)
        .filter(Boolean)
        .map((value) => ({ kind: 'fuzzy' as const, value })),
    };
  flush('fuzzy');
  return { mode: 'tokens', tokens };
}

/** Subsequence match: every query character in order. Lower score = tighter, earlier, on word starts. */
export function fuzzyScore(query: string, text: string): number | undefined {
  const q = query.toLowerCase();
  const t = text.toLowerCase();
  if (!q) return 0;
  if (q.length > t.length) return undefined;
  const positions: number[] = [];
  let last = -1;
  for (const ch of q) {
    const i = t.indexOf(ch, last + 1);
    if (i < 0) return undefined;
    positions.push(i);
    last = i;
  }
  let best = scorePositions(t, positions);
  for (let s = t.indexOf(q); s !== -1; s = t.indexOf(q, s + 1)) {
    best = Math.min(
      best,
      scorePositions(
        t,
        Array.from({ length: q.length }, (_, k) => s + k),
      ),
    );
  }
  return q === t ? best - 100 : best;
}

function scorePositions(t: string, positions: number[]): number {
  let score = 0;
  let last = -1;
  let run = 0;
  for (const i of positions) {
    if (last === i - 1) score -= ++run * 5;
    else {
      run = 0;
      if (last >= 0) score += (i - last - 1) * 2;
    }
    if (i === 0 || /[\s\-_./:]/.test(t[i - 1])) score -= 10;
    score += i * 0.1;
    last = i;
  }
  return score;
}

function literal(s: Searchable, value: string, normalize: (x: string) => string, phrase: boolean): number | undefined {
  const name = normalize(s.name ?? '');
  if (name.includes(value)) return fuzzyScore(value, name) ?? 0;
  const messages = s.text ? (phrase ? s.text.normalized : s.text.lower) : normalize(s.firstMessage);
  if (s.id.toLowerCase().includes(value) || messages.includes(value) || normalize(s.cwd).includes(value)) return TIER;
  return undefined;
}

/** Score of a session for a query (lower is better), or undefined when it does not match. */
export function matchSession(s: Searchable, q: ParsedQuery): number | undefined {
  if (q.mode === 'regex') {
    if (!q.regex) return undefined;
    if (s.name && q.regex.test(s.name)) return 0;
    return q.regex.test(s.id) || q.regex.test(s.text?.raw ?? s.firstMessage) || q.regex.test(s.cwd) ? TIER : undefined;
  }
  let total = 0;
  for (const tok of q.tokens) {
    let score: number | undefined;
    if (tok.kind === 'phrase') {
      const phrase = norm(tok.value);
      if (!phrase) continue;
      score = literal(s, phrase, norm, true);
    } else {
      score = literal(s, tok.value.toLowerCase(), (x) => x.toLowerCase(), false);
      if (score === undefined) {
        for (const field of [s.name ?? '', s.cwd]) {
          const f = fuzzyScore(tok.value, field);
          if (f !== undefined && (score === undefined || 2 * TIER + f < score)) score = 2 * TIER + f;
        }
      }
    }
    if (score === undefined) return undefined;
    total += score;
  }
  return total;
}
