// Commands of the compare views: compare two nodes (the node menu, or two sessions of one family from the
// sidebar), the files changed on a branch, export a branch as Markdown, hide a dead-end branch, fold
// what is off the current path. Actions the webview carries out itself are handed to it (invoke).
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { familyOf } from '../../core/listing/family.js';
import { samePath } from '../../core/session/repository.js';
import type { SessionInfo } from '../../core/listing/sessionInfo.js';
import { exportBranchTo } from '../compare/codeChangeActions.js';
import { withSession, type Host } from './host.js';
import { registerCommand } from './register.js';
import { targetFile } from './targetSession.js';

export function registerCompareCommands(host: Host): void {
  const command = (id: string, fn: (...args: unknown[]) => unknown) => registerCommand(host.context, id, fn);
  /** The tree in front and the entry a node command means (its menu's node, else the selection). */
  const node = (ctx: unknown) => {
    const c = host.panels.active();
    const id = (ctx as { entryId?: unknown } | undefined)?.entryId ?? c?.selectedId;
    return c && typeof id === 'string' ? { c, id } : undefined;
  };
  command('piTree.node.compareWith', (ctx) => {
    const n = node(ctx);
    n?.c.invoke('compareWith', n.id);
  });
  command('piTree.node.compareWithLeaf', (ctx) => {
    const n = node(ctx);
    if (n) host.compareServices.compare({ file: n.c.file, id: n.id }, { file: n.c.file, id: null });
  });
  command('piTree.node.branchFiles', (ctx) => {
    const n = node(ctx);
    n?.c.invoke('branchFiles', n.id);
  });
  command('piTree.node.toggleHidden', (ctx) => {
    const n = node(ctx);
    n?.c.invoke('toggleHidden', n.id);
  });
  for (const [cmd, to] of [
    ['piTree.node.exportBranch', 'editor'],
    ['piTree.node.copyBranchMarkdown', 'clipboard'],
  ] as const) {
    command(cmd, async (ctx) => {
      const n = node(ctx);
      if (!n) return;
      const r = await withSession(host, n.c.file, (s) => exportBranchTo(s, n.id, to));
      if (to === 'clipboard')
        void vscode.window.showInformationMessage(`Copied the branch as Markdown (${r.entries} entries).`);
    });
  }
  command('piTree.tree.foldOffPath', () => host.panels.active()?.invoke('foldOffPath'));
  registerSidebarCompare(host, command);
}

/** The sidebar's: a session's current branch as Markdown; two sessions of one family side by side. */
function registerSidebarCompare(host: Host, command: (id: string, fn: (...args: unknown[]) => unknown) => void): void {
  command('piTree.exportSession', async (arg) => {
    const file = await targetFile(host, arg);
    if (!file) return;
    await withSession(host, file, async (s) => {
      if (!s.leafId) throw new Error('This session has no entries yet.');
      await exportBranchTo(s, s.leafId, 'editor');
    });
  });
  command('piTree.compareSessions', async (arg) => {
    const file = await targetFile(host, arg);
    if (!file) return;
    const others = await withSession(host, file, (s) =>
      familyToCompare(host, file, typeof s.header.parentSession === 'string' ? s.header.parentSession : undefined),
    );
    if (!others.length) {
      void vscode.window.showInformationMessage(
        'This session has no family: no session it came from, and no forks or clones of it.',
      );
      return;
    }
    const pick = await vscode.window.showQuickPick(
      others.map((o) => ({
        label: host.view.names.title(o.info) || basename(o.info.path),
        description: `${o.how} · ${o.info.messageCount} msgs`,
        detail: basename(o.info.path),
        path: o.info.path,
      })),
      { placeHolder: 'Compare the current branch of this session with…' },
    );
    if (pick) host.compareServices.compare({ file, id: null }, { file: pick.path, id: null });
  });
}

/** The sessions of `file`'s family to compare it with: the one it came from, its siblings, its own forks. */
async function familyToCompare(
  host: Host,
  file: string,
  parentPath: string | undefined,
): Promise<{ info: SessionInfo; how: string }[]> {
  const family = (path: string, parent?: string) =>
    familyOf(path, parent, host.repo().cache, host.view.sessions, undefined, host.repo());
  const fam = await family(file, parentPath);
  const list: { info: SessionInfo; how: string }[] = [];
  if (fam.parent) {
    list.push({ info: fam.parent, how: 'came from' });
    const sib = await family(fam.parent.path);
    for (const c of sib.children) if (!samePath(c.path, file)) list.push({ info: c, how: 'sibling fork' });
  }
  for (const c of fam.children) list.push({ info: c, how: 'fork' });
  return list;
}
