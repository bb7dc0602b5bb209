// Values read from a session file as text or as numbers, never throwing: JSON such as {"toString":1}
// makes String(), Number() and template strings throw ("Cannot convert object to primitive value"),
// and one such field in a crafted file must not stop a listing, a tree or an export.

/** `String(v)`, or "[object]" for an object that cannot be turned into text. */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return String(v);
  } catch {
    return '[object]';
  }
}

/** `Number(v)`, or NaN for an object that cannot be turned into a number. */
export function asNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  try {
    return Number(v);
  } catch {
    return NaN;
  }
}

/** `new Date(v).getTime()` (pi's message time of an entry's timestamp), or NaN for an object that cannot be a date. */
export function timeMs(v: unknown): number {
  try {
    return new Date(v as string).getTime();
  } catch {
    return NaN;
  }
}
