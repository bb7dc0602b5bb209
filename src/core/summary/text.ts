// Text helpers with pi-ai's exact behaviour (utils/text.js contentText; tools/truncate.js sliceHead).

import { asText } from '../format/values.js';

type Obj = Record<string, unknown>;

/**
 * pi-ai contentText: a string as is, else the text blocks joined by `separator`. (asText gives join's text
 * for each block; "[object]" for a `text` that is not text and that join would throw on, e.g. an array
 * nested past the stack.)
 */
export function contentText(content: unknown, separator = '\n'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Obj => typeof b === 'object' && b !== null && (b as Obj).type === 'text')
    .map((b) => (b.text == null ? '' : asText(b.text)))
    .join(separator);
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** At most the first `maxUnits` UTF-16 units, never splitting a surrogate pair. */
export function sliceHead(text: string, maxUnits: number): string {
  const end = Math.max(0, maxUnits);
  return isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end)) ? text.slice(0, end - 1) : text.slice(0, end);
}
