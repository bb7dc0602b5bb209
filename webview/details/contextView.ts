// "Context at this entry": the messages the model would see with the leaf there (built by the host,
// getContext), with their token estimates and the compaction boundary; each links back to its entry.
import type { ContextView } from '../../src/protocol';
import { h } from '../ui/dom';
import { kv, linkButton, type DetailsLinks } from './entryView';

/** "Context at this entry": what the model would see with the leaf here. */
export function renderContext(c: ContextView, links: DetailsLinks): HTMLElement {
  const root = h('div', 'context-view');
  root.append(
    kv([
      ['Messages', String(c.messages.length)],
      ['Tokens (estimate)', `~${String(c.tokens).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`],
      ['Model', c.model ?? 'unknown'],
      ['Thinking', c.thinkingLevel],
    ]),
  );
  const ol = h('ol', 'context-list');
  c.messages.forEach((m, i) => {
    if (c.compactionAt !== undefined && i === c.compactionAt) {
      ol.append(h('li', 'boundary', '── compaction boundary: older messages are replaced by the summary below ──'));
    }
    const li = h('li', `ctx-msg role-${m.role.replace(/[^A-Za-z]/g, '')}`);
    const head = h('div', 'ctx-head');
    head.append(h('span', 'ctx-role', m.role), h('span', 'ctx-tokens', `~${m.tokens} tok`));
    if (m.entryId) head.append(linkButton('show', () => links.goTo(m.entryId!)));
    li.append(head, h('div', 'ctx-text', m.text.length > 600 ? m.text.slice(0, 600) + '…' : m.text));
    ol.append(li);
  });
  root.append(ol);
  return root;
}
