// Commands on one node of the tree in front: the webview's native context menu (its data-vscode-context
// names the entry) and the palette's tree commands. Each goes to the same actions as the webview's own.
import * as vscode from 'vscode';
import type { InvokeAction } from '../../protocol.js';
import { moveHere } from '../panels/moveHere.js';
import { describeEntry } from '../checkpoints/entryWords.js';
import type { TreeController } from '../panels/treeController.js';
import type { SessionActions } from '../panels/sessionActions.js';
import type { Host } from './host.js';
import { registerCommand } from './register.js';

export function registerNodeCommands(host: Host): void {
  const nodeCommand = (id: string, fn: (c: TreeController, actions: SessionActions, entryId: string) => unknown) =>
    registerCommand(host.context, id, async (ctx) => {
      // The menu's context names the tree it was opened in: the command goes there, whichever is in front.
      const token = (ctx as { panel?: unknown } | undefined)?.panel;
      const c = (typeof token === 'string' ? host.panels.byToken(token) : undefined) ?? host.panels.active();
      const entryId = (ctx as { entryId?: unknown } | undefined)?.entryId ?? c?.selectedId;
      const actions = c?.sessionActions;
      if (!c || !actions || typeof entryId !== 'string') return;
      return fn(c, actions, entryId);
    });
  nodeCommand('piTree.node.moveHere', async (c, actions, id) => {
    const s = c.openSession;
    const r = s ? await moveHere({ session: s, file: c.file, actions, code: host.code }, id) : await actions.moveTo(id);
    if (r.editorText) {
      await vscode.env.clipboard.writeText(r.editorText);
      void vscode.window.showInformationMessage(
        'Moved before this message; its text is on the clipboard for re-editing.',
      );
    }
  });
  nodeCommand('piTree.node.moveWithSummary', (c, _a, id) => c.invoke('summaryMove', id));
  // pi's /compact works on the context at the leaf (the menu offers it there).
  nodeCommand('piTree.node.compact', (c) => c.invoke('compact'));
  nodeCommand('piTree.node.fork', (_c, actions, id) => actions.fork(id));
  nodeCommand('piTree.node.clone', (_c, actions, id) => actions.clone(id));
  nodeCommand('piTree.node.label', (c, _a, id) => c.invoke('editLabel', id));
  nodeCommand('piTree.node.details', (c, _a, id) => c.invoke('details', id));
  nodeCommand('piTree.node.copyText', async (_c, actions, id) =>
    vscode.env.clipboard.writeText(await actions.copyableText(id)),
  );
  // (the leaf moves only once pi is known to start)
  nodeCommand('piTree.node.continueInPi', (c, actions, id) =>
    host.continueInPi(c.file, undefined, async () => {
      const r = await actions.moveTo(id);
      return r.cancelled ? undefined : { text: r.editorText };
    }),
  );
  // Ask from here: the node menu focuses the details pane's prompt box (with its model picker) …
  nodeCommand('piTree.node.askFromHere', (c, _a, id) => c.invoke('ask', id));
  // … the palette asks for the prompt in an input box, for the tree's selected node.
  registerCommand(host.context, 'piTree.tree.askFromHere', () => askFromPalette(host));
  // Try variants: the node menu's node, or the palette's selected node of the tree in front.
  nodeCommand('piTree.node.tryVariants', (c, actions, id) => tryVariantsFrom(host, c, actions, id));
  registerCommand(host.context, 'piTree.tree.tryVariants', () => {
    const c = host.panels.active();
    if (!c?.openSession || !c.sessionActions)
      return void vscode.window.showInformationMessage(
        'Open a session tree, select a node, then try variants from it.',
      );
    if (!c.selectedId)
      return void vscode.window.showInformationMessage('Select a node in the tree to try variants from.');
    return tryVariantsFrom(host, c, c.sessionActions, c.selectedId);
  });
  const treeCommands: [string, InvokeAction][] = [
    ['piTree.tree.find', 'find'],
    ['piTree.tree.focusLeaf', 'focusLeaf'],
    ['piTree.tree.fit', 'fit'],
    ['piTree.tree.overview', 'overview'],
    ['piTree.tree.toggleLayout', 'toggleLayout'],
    ['piTree.tree.shortcuts', 'showShortcuts'],
  ];
  for (const [cmd, action] of treeCommands)
    registerCommand(host.context, cmd, () => host.panels.active()?.invoke(action));
}

async function tryVariantsFrom(host: Host, c: TreeController, actions: SessionActions, id: string): Promise<void> {
  const session = c.openSession;
  if (!session) return;
  // (failures are shown by the launcher)
  await host.tryVariants({ session, file: c.file, actions }, id).catch(() => undefined);
}

/** "pi Tree: Ask from Here…": the prompt for the selected node of the tree in front, asked by that tree (its box shows the turn). */
async function askFromPalette(host: Host): Promise<void> {
  const c = host.panels.active();
  const s = c?.openSession;
  const id = c?.selectedId;
  if (!c || !s)
    return void vscode.window.showInformationMessage('Open a session tree, select a node, then ask from it.');
  if (!id) return void vscode.window.showInformationMessage('Select a node in the tree to ask from.');
  if (!vscode.workspace.isTrusted)
    return void vscode.window.showErrorMessage(
      'Ask from here is not available in Restricted Mode (it starts pi): trust this workspace first.',
    );
  if (s.readOnly) return void vscode.window.showErrorMessage(`This session is read-only: ${s.readOnly}.`);
  const prompt = await vscode.window.showInputBox({
    title: `Ask pi from ${await describeEntry(s, id)}`,
    prompt:
      "pi continues the session from this node with your prompt, with the session's model (the details pane's box also picks a model).",
    placeHolder: 'Your prompt',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Write a prompt for pi.'),
  });
  if (prompt === undefined || !prompt.trim()) return;
  c.invoke('ask', id, prompt);
}
