// One entry's full content in the details pane (fetched on demand with getEntry), by entry type and
// message role. Everything from the session goes in as text nodes or as sanitized Markdown
// (markdown.ts); images only as data: URIs of raster types. JSON goes through jsonShown: the host has
// cut nesting past SHOWN_DEPTH (entryDetails.ts), and a value deeper than the stack must not stop the pane.
import type { EntryDetails } from '../../src/protocol';
import { jsonShown } from '../../src/shared/safeJson';
import { h } from '../ui/dom';
import { isSafeImage, setMarkdown } from './markdown';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface DetailsLinks {
  /** Selects an entry by id (branch summary `fromId`, compaction `firstKeptEntryId`, context rows). */
  goTo(id: string): void;
  markdown: boolean;
}

function section(title: string, body: Node, cls = ''): HTMLElement {
  const s = h('section', `block ${cls}`.trim());
  s.append(h('h3', undefined, title), body);
  return s;
}

function pre(text: string, cls = ''): HTMLPreElement {
  return h('pre', cls, text);
}

function prose(text: string, markdown: boolean): HTMLElement {
  const d = h('div', markdown ? 'markdown' : 'plain');
  if (markdown) setMarkdown(d, text);
  else d.textContent = text;
  return d;
}

export function kv(rows: [string, string | undefined][]): HTMLElement {
  const dl = h('dl', 'kv');
  for (const [k, v] of rows) {
    if (v === undefined || v === '') continue;
    dl.append(h('dt', undefined, k), h('dd', undefined, v));
  }
  return dl;
}

export function linkButton(text: string, onClick: () => void, cls = 'link'): HTMLButtonElement {
  const b = h('button', cls, text);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

function fileLists(details: unknown): HTMLElement | undefined {
  if (!isRec(details)) return undefined;
  const read = Array.isArray(details.readFiles)
    ? details.readFiles.filter((x): x is string => typeof x === 'string')
    : [];
  const mod = Array.isArray(details.modifiedFiles)
    ? details.modifiedFiles.filter((x): x is string => typeof x === 'string')
    : [];
  if (!read.length && !mod.length) return undefined;
  const d = h('div', 'files');
  const list = (title: string, files: string[]) => {
    if (!files.length) return;
    const ul = h('ul');
    for (const f of files) ul.append(h('li', undefined, f));
    d.append(h('h4', undefined, `${title} (${files.length})`), ul);
  };
  list('Read files', read);
  list('Modified files', mod);
  return d;
}

function usageText(u: unknown): string | undefined {
  if (!isRec(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const parts = [`in ${n(u.input)}`, `out ${n(u.output)}`];
  if (n(u.cacheRead)) parts.push(`cache read ${n(u.cacheRead)}`);
  if (n(u.cacheWrite)) parts.push(`cache write ${n(u.cacheWrite)}`);
  const cost = isRec(u.cost) ? n(u.cost.total) : 0;
  if (cost) parts.push(`$${cost.toFixed(4)}`);
  return parts.join(' · ');
}

/** Text, image, thinking and tool-call blocks of a message's content. */
function contentBlocks(content: unknown, links: DetailsLinks, asMarkdown: boolean): HTMLElement {
  const box = h('div', 'content');
  if (typeof content === 'string') {
    box.append(prose(content, asMarkdown && links.markdown));
    return box;
  }
  if (!Array.isArray(content)) return box;
  for (const b of content) {
    if (!isRec(b)) continue;
    switch (b.type) {
      case 'text':
        box.append(prose(str(b.text), asMarkdown && links.markdown));
        break;
      case 'thinking': {
        const d = h('details', 'thinking');
        d.append(h('summary', undefined, b.redacted ? 'Thinking (redacted)' : 'Thinking'));
        d.append(pre(str(b.thinking)));
        box.append(d);
        break;
      }
      case 'toolCall': {
        const d = h('div', 'tool-call');
        d.append(h('div', 'tool-name', `Tool call: ${str(b.name)}`));
        d.append(pre(jsonShown(b.arguments ?? {}, 2) ?? ''));
        box.append(d);
        break;
      }
      case 'image': {
        const uri = `data:${str(b.mimeType)};base64,${str(b.data)}`;
        if (isSafeImage(uri)) {
          const img = h('img', 'image');
          img.alt = 'Image from the session';
          img.src = uri;
          box.append(img);
        } else box.append(h('div', 'muted', `[image ${str(b.mimeType) || 'of unknown type'} not shown]`));
        break;
      }
      default:
        box.append(pre(jsonShown(b, 2) ?? ''));
    }
  }
  return box;
}

/** The body of a message entry `m`, by role, into `root`. */
function messageBody(root: HTMLElement, m: Rec, links: DetailsLinks): void {
  const role = str(m.role);
  if (role === 'user' || role === 'assistant' || role === 'custom' || role === 'system') {
    root.append(contentBlocks(m.content, links, role !== 'system'));
  }
  if (role === 'assistant') {
    root.append(
      kv([
        ['Model', [str(m.provider), str(m.model)].filter(Boolean).join(' / ')],
        ['Stop', str(m.stopReason)],
        ['Error', str(m.errorMessage)],
        ['Usage', usageText(m.usage)],
        ['Duration', typeof m.durationMs === 'number' ? `${(m.durationMs / 1000).toFixed(1)} s` : undefined],
      ]),
    );
  } else if (role === 'toolResult') {
    root.append(
      kv([
        ['Tool', str(m.toolName)],
        ['Result', m.isError ? 'error' : 'ok'],
      ]),
    );
    const c = Array.isArray(m.content) ? m.content : [];
    for (const b of c) {
      if (isRec(b) && b.type === 'text') root.append(pre(str(b.text), m.isError ? 'error' : ''));
      else if (isRec(b) && b.type === 'image') root.append(contentBlocks([b], links, false));
    }
  } else if (role === 'bashExecution') {
    root.append(
      kv([
        ['Command', str(m.command)],
        ['Exit code', m.exitCode === undefined ? (m.cancelled ? 'cancelled' : '') : String(m.exitCode)],
      ]),
    );
    root.append(pre(str(m.output)));
  } else if (!['user', 'assistant', 'custom', 'system'].includes(role)) {
    root.append(pre(jsonShown(m, 2) ?? ''));
  }
}

/** Renders the body of one entry. */
export function renderEntry(d: EntryDetails, links: DetailsLinks): HTMLElement {
  const root = h('div', 'entry');
  const e = isRec(d.entry) ? d.entry : {};
  const type = str(e.type);
  if (d.truncated) root.append(h('div', 'notice', 'Long text or deep nesting is cut here; the file holds all of it.'));
  if (type === 'message' && isRec(e.message)) {
    messageBody(root, e.message, links);
  } else if (type === 'compaction' || type === 'branch_summary') {
    root.append(section('Summary', prose(str(e.summary), links.markdown)));
    const files = fileLists(e.details);
    if (files) root.append(section('Files', files));
    const facts: [string, string | undefined][] = [];
    if (type === 'compaction')
      facts.push(['Tokens before', typeof e.tokensBefore === 'number' ? String(e.tokensBefore) : undefined]);
    facts.push(['Usage', usageText(e.usage)], ['Made by', e.fromHook ? 'an extension' : 'pi']);
    root.append(kv(facts));
    if (type === 'branch_summary' && typeof e.fromId === 'string') {
      root.append(
        linkButton('Go to the branch this summary came from', () => links.goTo(e.fromId as string), 'link from-link'),
      );
    }
    if (type === 'compaction' && typeof e.firstKeptEntryId === 'string') {
      root.append(linkButton('Go to the first kept entry', () => links.goTo(e.firstKeptEntryId as string)));
    }
  } else if (type === 'custom_message') {
    root.append(
      kv([
        ['Extension', str(e.customType)],
        ['Shown', e.display ? 'yes' : 'no'],
      ]),
    );
    root.append(contentBlocks(e.content, links, true));
  } else if (type === 'model_change') {
    root.append(
      kv([
        ['Provider', str(e.provider)],
        ['Model', str(e.modelId)],
      ]),
    );
  } else if (type === 'thinking_level_change') {
    root.append(kv([['Thinking level', str(e.thinkingLevel)]]));
  } else if (type === 'label') {
    root.append(
      kv([
        ['Target', str(e.targetId)],
        ['Label', e.label ? str(e.label) : '(cleared)'],
      ]),
    );
  } else if (type === 'session_info') {
    root.append(kv([['Name', str(e.name) || '(empty)']]));
  } else {
    root.append(pre(jsonShown(e, 2) ?? ''));
  }
  return root;
}
