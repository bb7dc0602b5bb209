// Find in a session: a query of whitespace-separated terms that must all match one node. Plain terms
// are case-insensitive substrings of the node's searchable text (pi's /tree search: label, role and row
// text); operators narrow to one field: role: tool: label: file: model: re: ("quoted phrases" allowed).
import type { NodeView } from '../../src/protocol';

export type TermKind = 'text' | 'role' | 'tool' | 'label' | 'file' | 'model' | 're';
export interface Term {
  kind: TermKind;
  value: string;
  re?: RegExp;
}
export interface Query {
  terms: Term[];
  error?: string;
}

const OPERATORS = new Set<TermKind>(['role', 'tool', 'label', 'file', 'model', 're']);

/** Splits on whitespace, keeping "double quoted" parts together (also after an operator). */
function tokenize(q: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let had = false;
  for (const ch of q) {
    if (ch === '"') {
      quoted = !quoted;
      had = true;
      continue;
    }
    if (!quoted && /\s/.test(ch)) {
      if (cur || had) out.push(cur);
      cur = '';
      had = false;
      continue;
    }
    cur += ch;
  }
  if (cur || had) out.push(cur);
  return out.filter((t) => t.length > 0);
}

export function parseQuery(q: string): Query {
  const terms: Term[] = [];
  for (const tok of tokenize(q)) {
    const m = /^([a-z]+):(.*)$/i.exec(tok);
    const op = m?.[1].toLowerCase() as TermKind | undefined;
    if (m && op && OPERATORS.has(op)) {
      const value = m[2];
      if (op === 're') {
        if (!value) continue;
        try {
          terms.push({ kind: 're', value, re: new RegExp(value, 'i') });
        } catch (e) {
          return { terms: [], error: regexError(e) };
        }
        continue;
      }
      if (!value) continue;
      terms.push({ kind: op, value: value.toLowerCase() });
      continue;
    }
    terms.push({ kind: 'text', value: tok.toLowerCase() });
  }
  return { terms };
}

/**
 * One clear message for a bad `re:` pattern. V8's own already starts with "Invalid regular expression:
 * /pattern/flags:", which would say it twice and repeat the pattern the user is looking at.
 */
function regexError(e: unknown): string {
  const reason = String((e as Error)?.message ?? e)
    .replace(/^Invalid regular expression:\s*/i, '')
    .replace(/^\/.*\/[a-z]*:\s*/s, '');
  return `Invalid regular expression: ${reason || 'cannot be parsed'}`;
}

/** Text a plain term is matched against (pi: label + role + row text; kind and type for convenience). */
export function searchableText(n: NodeView): string {
  return `${n.label ?? ''} ${n.role ?? ''} ${n.kind} ${n.type} ${n.text} ${n.tools?.join(' ') ?? ''}`.toLowerCase();
}

export function matchNode(n: NodeView, q: Query, cache?: Map<NodeView, string>): boolean {
  if (!q.terms.length) return false;
  let text: string | undefined;
  const getText = () => {
    if (text !== undefined) return text;
    text = cache?.get(n);
    if (text === undefined) {
      text = searchableText(n);
      cache?.set(n, text);
    }
    return text;
  };
  for (const t of q.terms) {
    switch (t.kind) {
      case 'text':
        if (!getText().includes(t.value)) return false;
        break;
      case 'role': {
        const role = (n.role ?? '').toLowerCase();
        const kind = n.kind.toLowerCase();
        if (!role.startsWith(t.value) && !kind.startsWith(t.value)) return false;
        break;
      }
      case 'tool':
        if (!n.tools?.some((x) => x.toLowerCase().includes(t.value))) return false;
        break;
      case 'label':
        if (n.label === undefined || !n.label.toLowerCase().includes(t.value)) return false;
        break;
      case 'file':
        if (!n.files?.some((f) => f.toLowerCase().includes(t.value))) return false;
        break;
      case 'model':
        if (!n.model || !n.model.toLowerCase().includes(t.value)) return false;
        break;
      case 're':
        // Against the row text, or the label: anchors like ^ work on what the user sees.
        if (!t.re!.test(n.text) && !(n.label !== undefined && t.re!.test(n.label))) return false;
        break;
    }
  }
  return true;
}
