// Session text in Markdown that a renderer with raw HTML on (VS Code's preview, markdown-it with
// `html: true`) shows as the session holds it: no element, comment or attribute from the session, and
// nothing that ends pi-tree's own structure (a fence, a <details>/<summary>) early or hides what follows.
// A `<!--` on a line of its own would otherwise hide the next tool call, `</details>` close pi-tree's
// block, an unclosed fence swallow the rest of the export.
//
// Every raw HTML construct starts with `<` and a letter, `/`, `!` or `?`; entities with `&`. Outside
// code, such a `<` becomes `&lt;` and such a `&` `&amp;` (both render as the character). Inside a
// fenced block `<` must stay as it is, so the fences are followed as CommonMark reads them, container-
// agnostic: a fence is trusted only when every reading (top level, in a list item) makes its lines code
// and closes it at the same line. Whatever is not sure that way makes the whole message one fenced
// block (its exact text, without formatting). A code span holding `<` is written as a <code> element
// of pi-tree's with escaped content, which renders the same and is safe however a renderer splits the
// text. test/core/changes/markdownText.test.ts renders random hostile text with markdown-it and checks it.

/** A fenced block whose fence is longer than any backtick run inside. */
export function fence(text: string, lang = ''): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text}${text.endsWith('\n') ? '' : '\n'}${f}\n`;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Line breaks (as CommonMark counts them) and the blanks around them as one space. */
const oneLine = (s: string) => s.replace(/[ \t]*(?:\r\n?|\n)[ \t\r\n]*/g, ' ');

/** Text for inside pi-tree's own HTML (a <summary>): one line (a blank line would end the HTML block), escaped. */
export function htmlLine(s: string): string {
  return escapeHtml(oneLine(s));
}

/** `s` as a code span: one line, fenced by more backticks than it holds. */
export function codeSpan(s: string): string {
  const t = oneLine(s);
  if (!t) return '` `';
  let longest = 0;
  for (const m of t.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(longest + 1);
  // (a renderer strips one space from each end when both have one: padded so it strips the padding)
  const pad = /^[ `]|[ `]$/.test(t) ? ' ' : '';
  return `${f}${pad}${t}${pad}${f}`;
}

const ENTITY = /&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)/g;
const HTML_START = /<(?=[A-Za-z/!?])/g;

/** `s` as inline text of one line (a name, a label, a model) that renders as itself: Markdown and HTML escaped. */
export function lineText(s: string): string {
  return oneLine(s)
    .trim()
    .replace(/[\\`*_[\]~]/g, '\\$&')
    .replace(ENTITY, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/#+$/, (h) => h.replace(/#/g, '\\#')); // (a heading's closing sequence)
}

const blank = (l: string) => /^[ \t]*$/.test(l);
/** The columns of a line's indentation, at least and at most: a tab is 1 to 4 columns, by where the line starts (a quote's `> ` moves it). */
function indent(l: string): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const c of l) {
    if (c !== ' ' && c !== '\t') break;
    min++;
    max += c === ' ' ? 1 : 4;
  }
  return { min, max };
}

// A fence line indented by spaces only; the same after any indentation and container markers (a list
// item, a quote), which this file does not follow; a closing line of any fence.
const FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
const MAYBE_FENCE = /^[ \t>*+\-.)0-9]*(?:`{3}|~{3})/;
const CLOSING = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/**
 * Message text (Markdown written by a person or a model) that renders as itself with raw HTML on: HTML
 * and entities outside code escaped, every fence it opens closed before it ends. When the fences cannot
 * be followed for sure, the text as one fenced block.
 */
export function proseText(text: string): string {
  if (!/[<&`~\r]/.test(text)) return text; // (nothing to escape, no fence to follow)
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let chunk: string[] = [];
  const flush = () => {
    if (chunk.length) out.push(...inline(chunk.join('\n')).split('\n'));
    chunk = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = FENCE.exec(line);
    if (m && (m[2][0] === '~' || !m[3].includes('`'))) {
      flush();
      const end = fenceEnd(lines, i, m[1].length, m[2][0], m[2].length);
      if (end === undefined) return fence(text);
      // Indented 4 or more, the lines may be a paragraph's or an indented block's: escaped (shown as
      // &lt; if they are code after all); else they are code however the line is read.
      const trusted = m[1].length <= 3;
      const last = end < 0 ? lines.length - 1 : end;
      for (let j = i; j <= last; j++) out.push(trusted ? lines[j] : escapeAll(lines[j]));
      if (end < 0) out.push(`${m[1]}${m[2]}`); // (closed here, so the text after the message stays outside)
      i = last;
    } else if (m) {
      // Not a fence (a backtick after the run), but it would be one if a code span took that backtick
      // away: its first backtick escaped, so that it never is.
      chunk.push(line.replace('`', '\\`'));
    } else if (MAYBE_FENCE.test(line)) return fence(text);
    else if (blank(line)) {
      flush();
      out.push(line);
    } else chunk.push(line);
  }
  flush();
  return out.join('\n');
}

/**
 * The line that closes the fence opened at `open` (indented k spaces, `len` of `ch`), -1 when none does
 * (it runs to the end), undefined when that depends on a container this file does not follow. Read in a
 * list item whose content starts at column c (0 ≤ c ≤ k, k − c ≤ 3), a line ends the fence when it is
 * a closing line indented c to c + 3, or not blank and indented less than c: so a closing line indented
 * k to max(k, 3) closes it for every c, one indented more than k + 3 is content for every c, and a line
 * indented less than k, or a closing line between, is unsure.
 */
function fenceEnd(lines: string[], open: number, k: number, ch: string, len: number): number | undefined {
  for (let j = open + 1; j < lines.length; j++) {
    const l = lines[j];
    if (blank(l)) continue;
    const { min, max } = indent(l);
    const c = CLOSING.exec(l);
    if (c && c[1][0] === ch && c[1].length >= len) {
      if (min >= k && max <= Math.max(k, 3)) return j;
      if (min <= k + 3) return undefined;
    } else if (min < k) return undefined;
  }
  return -1;
}

/** `<` that could start HTML and `&` that could start an entity, escaped wherever they are (lines that may or may not be code). */
function escapeAll(s: string): string {
  return s.replace(ENTITY, '&amp;').replace(HTML_START, '&lt;');
}

const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const ENTITY_AT = /&(?:#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)/y;
const startsHtml = (s: string, at: number) => s[at] === '<' && /[A-Za-z/!?]/.test(s[at + 1] ?? '');
const startsEntity = (s: string, at: number) => ((ENTITY_AT.lastIndex = at), ENTITY_AT.test(s));

/** One paragraph's worth of lines: `<` and `&` escaped outside code spans; a span holding `<` as a <code> element. */
function inline(s: string): string {
  let out = '';
  let from = 0; // s[from, i) is copied as it is
  const special = /[\\`<&]/g;
  for (let m = special.exec(s); m; m = special.exec(s)) {
    const i = m.index;
    let put: string | undefined;
    let next = i + 1;
    if (s[i] === '\\') {
      if (i + 1 < s.length && ASCII_PUNCT.test(s[i + 1])) {
        // An escaped `<` or `&` renders as the character, as the entity does: so whichever way a
        // renderer pairs the backslashes, no `<` is left that could start HTML.
        if (startsHtml(s, i + 1)) put = '&lt;';
        else if (s[i + 1] === '&' && startsEntity(s, i + 1)) put = '&amp;';
        next = i + 2;
      }
    } else if (s[i] === '`') {
      let run = 1;
      while (s[i + run] === '`') run++;
      next = i + run;
      const close = closingRun(s, next, run);
      if (close >= 0) {
        const content = s.slice(next, close);
        if (/<[A-Za-z/!?]/.test(content)) put = `<code>${codeHtml(content)}</code>`;
        next = close + run;
      }
    } else if (s[i] === '<') {
      if (startsHtml(s, i)) put = '&lt;';
    } else if (startsEntity(s, i)) put = '&amp;';
    if (put !== undefined) {
      out += s.slice(from, i) + put;
      from = next;
    }
    special.lastIndex = next;
  }
  return out + s.slice(from);
}

/** Where the next run of exactly `run` backticks at or after `from` starts, else -1. */
function closingRun(s: string, from: number, run: number): number {
  for (let i = s.indexOf('`', from); i >= 0; i = s.indexOf('`', i)) {
    let n = 1;
    while (s[i + n] === '`') n++;
    if (n === run) return i;
    i += n;
  }
  return -1;
}

/** A code span's content as CommonMark shows it (line breaks as spaces, one space off each end when both have one), as text inside <code>. */
function codeHtml(content: string): string {
  let t = content.replace(/\n/g, ' ');
  if (t.startsWith(' ') && t.endsWith(' ') && t.trim()) t = t.slice(1, -1);
  // (inside the element the text is Markdown again: its punctuation escaped, `|` too for a table's cells)
  return escapeHtml(t).replace(/[\\`*_[\]~!|]/g, '\\$&');
}
