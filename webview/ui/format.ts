// Text formatting shared by the views: row text without pi's role prefix, clipping, thousands and local
// times (no Intl: it is slow to start in a fresh webview).

/** Row text without pi's role prefix (the icon says it). */
export function short(s: string): string {
  return s
    .replace(/^(user|assistant): /, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `s` cut to `n` characters with an ellipsis. */
export function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, Math.max(1, n - 1)) + '…' : s;
}

/**
 * `s` cut to at most `n` characters at a word boundary, with an ellipsis: a title never ends mid-word
 * (a single word longer than `n` is cut, as nothing else fits).
 */
export function clipWords(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(0, Math.max(1, n - 1));
  const space = cut.search(/\s\S*$/);
  return `${(space > n / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:–-]+$/, '')}…`;
}

/** 12345 → "12,345". */
export function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Local date and time as YYYY-MM-DD HH:MM:SS. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
