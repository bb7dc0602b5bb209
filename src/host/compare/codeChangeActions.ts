// What the tree's details pane asks about code changes: an entry's changes, one change in VS Code's diff
// editor (an edit's replaced regions; a write against what the session knew of the file before it), the
// files changed on a branch, and a branch exported as Markdown. Only the session file is read.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { changesAt, changesOnPath, changeInfo, summarizeFiles } from '../../core/changes/branchChanges.js';
import { editRegions } from '../../core/changes/codeChanges.js';
import { exportBranch } from '../../core/changes/exportMarkdown.js';
import { contentBefore } from '../../core/changes/fileHistory.js';
import type { Session } from '../../core/session/session.js';
import type { BranchFilesReply, ChangesReply } from '../../protocol.js';
import type { ChangeDocuments } from './changeDocuments.js';

export async function changesReply(session: Session, id: string): Promise<ChangesReply> {
  const { entryId, changes, failed } = await changesAt(session, id);
  return {
    entryId,
    changes: changes.map((c, index) => {
      const { callId: _callId, ...info } = changeInfo(c, failed.has(c.callId));
      return { index, ...info, diff: c.tool !== 'bash' };
    }),
  };
}

/** Opens change `index` of entry `id` in VS Code's diff editor. */
export async function openChange(session: Session, id: string, index: number, docs: ChangeDocuments): Promise<void> {
  const { entryId, changes, failed } = await changesAt(session, id);
  const c = changes[index];
  if (!c) throw new Error(`Entry ${id} has no change number ${index + 1}.`);
  const name = basename(c.path) || 'file';
  const where = `${entryId}${failed.has(c.callId) ? ', failed' : ''}`;
  if (c.tool === 'edit') {
    const r = editRegions(c);
    await docs.openDiff(
      { text: r.before, name, tag: 'before' },
      { text: r.after, name, tag: 'after' },
      `${name}: edit at ${where} (replaced text ↔ new text)`,
    );
    return;
  }
  if (c.tool === 'write') {
    const path = session.index.branch(entryId);
    const known = await contentBefore(session, path, path.length - 1, c.path);
    const before = known
      ? {
          text: known.text,
          note: `${known.how === 'write' ? 'written' : 'read'} at ${known.baseEntryId}${known.edits ? ` + ${known.edits} edit${known.edits === 1 ? '' : 's'}` : ''}`,
        }
      : { text: '', note: 'nothing known before: no earlier write or whole read on this branch' };
    await docs.openDiff(
      { text: before.text, name, tag: 'before' },
      { text: c.content ?? '', name, tag: 'after' },
      `${name}: write at ${where} (${before.note} ↔ written)`,
    );
    return;
  }
  throw new Error(`A bash command's change (${c.op} ${c.path}) has no text to compare.`);
}

export async function branchFilesReply(session: Session, id: string): Promise<BranchFilesReply> {
  const entries = await changesOnPath(session, session.index.branch(id));
  return { entries: entries.length, files: summarizeFiles(entries) };
}

/** The branch root → `id` as Markdown in a new editor, or on the clipboard. */
export async function exportBranchTo(
  session: Session,
  id: string,
  to: 'editor' | 'clipboard',
): Promise<{ entries: number; chars: number }> {
  const parts: string[] = [];
  const { entries } = await exportBranch(session, id, (s) => parts.push(s));
  const text = parts.join('');
  if (to === 'clipboard') await vscode.env.clipboard.writeText(text);
  else
    await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument({ language: 'markdown', content: text }),
      { preview: false },
    );
  return { entries, chars: text.length };
}
