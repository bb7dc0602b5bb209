// Code changes in the details pane: an entry's file changes (a click opens VS Code's diff editor through
// the host, which names the change by entry id and position, never by path), and "files changed on this
// branch" (a click selects the last entry that changed the file).
import type { BranchFilesReply, ChangesReply, ChangeView } from '../../src/protocol';
import { h } from '../ui/dom';

function what(c: { tool: string; op?: string }): string {
  return c.tool === 'bash' ? `bash ${c.op ?? ''}`.trim() : c.tool;
}

function sizeText(c: { added: number; removed: number; tool: string }): string {
  if (c.tool === 'bash') return '';
  return `+${c.added} −${c.removed}`;
}

/** The "Changes" section of an entry; `open(i)` asks the host to show change i as a diff. */
export function renderChanges(reply: ChangesReply, open: (c: ChangeView) => void): HTMLElement {
  const s = h('section', 'block changes');
  s.append(h('h3', undefined, `Changes (${reply.changes.length})`));
  const ul = h('ul', 'change-list');
  for (const c of reply.changes) {
    const li = h('li', `change t-${c.tool}${c.failed ? ' failed' : ''}`);
    const icon = h(
      'span',
      `codicon codicon-${c.tool === 'write' ? 'new-file' : c.tool === 'edit' ? 'diff' : 'terminal'}`,
    );
    const label = `${what(c)} ${c.path}`;
    if (c.diff) {
      const b = h('button', 'link change-open', label);
      b.type = 'button';
      b.dataset.change = String(c.index);
      b.title = `Open the ${c.tool === 'edit' ? 'replaced and new text' : 'written content against what the session knew before'} in a diff editor`;
      b.addEventListener('click', () => open(c));
      li.append(icon, b);
    } else li.append(icon, h('span', 'change-path', label));
    const size = sizeText(c);
    if (size) li.append(h('span', 'change-size', size));
    if (c.failed) li.append(h('span', 'change-failed', 'failed'));
    ul.append(li);
  }
  s.append(ul);
  return s;
}

/** "Files changed on this branch": one row per file, newest change last; `goTo` selects an entry. */
export function renderBranchFiles(reply: BranchFilesReply, goTo: (id: string) => void): HTMLElement {
  const box = h('div', 'branch-files');
  if (!reply.files.length) {
    box.append(h('p', 'muted', 'No tool call on this branch changed a file.'));
    return box;
  }
  box.append(
    h(
      'p',
      'muted',
      `${reply.files.length} ${reply.files.length === 1 ? 'file' : 'files'} changed by ${reply.entries} ${reply.entries === 1 ? 'entry' : 'entries'} on the path from the root to here.`,
    ),
  );
  const ul = h('ul', 'change-list');
  for (const f of reply.files) {
    const li = h('li', 'change');
    const b = h('button', 'link file-open', f.path);
    b.type = 'button';
    b.title = 'Select the last entry that changed this file';
    b.addEventListener('click', () => goTo(f.lastEntryId));
    const facts = [`${f.changes} ${f.changes === 1 ? 'change' : 'changes'}`, f.tools.join(', ')];
    if (f.added || f.removed) facts.push(`+${f.added} −${f.removed}`);
    if (f.failed) facts.push(`${f.failed} failed`);
    li.append(h('span', 'codicon codicon-file'), b, h('span', 'change-size', facts.join(' · ')));
    ul.append(li);
  }
  box.append(ul);
  return box;
}
