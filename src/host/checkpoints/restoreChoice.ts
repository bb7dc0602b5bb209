// The restore's decision, asked beside its preview. A quick pick that stays open when focus leaves it
// (a modal dialog would dim the preview and block its scrolling, so the files could not be read before
// deciding): the user scrolls the multi-file diff editor, then picks. Conflicts are decided per file
// (keep mine, take the node's, merge); a paged preview offers the rest of its files.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Resolution } from '../../core/checkpoints/index.js';
import { planTally, planWords, takeNodeWords, type PlanItem, type RestorePlan } from '../../core/checkpoints/index.js';

/** What the user chose: the resolutions to restore with, the whole preview first, or nothing. */
export type RestoreDecision = { restore: Map<string, Resolution> } | 'previewAll' | undefined;

type Choice = 'restore' | 'mine' | 'theirs' | 'each' | 'previewAll' | 'cancel';
type ChoiceItem = vscode.QuickPickItem & { choice?: Choice };

/**
 * Asks how to restore `plan`. `hidden`: how many of its files the preview does not show yet (0: all
 * shown), offered as "Preview all".
 */
export async function decideRestore(plan: RestorePlan, title: string, withConversation: boolean, hidden: number): Promise<RestoreDecision> {
  const t = planTally(plan);
  const conflicts = plan.items.filter((i) => i.action === 'conflict');
  const one = conflicts.length === 1;
  const writes = `${planWords(t)}${withConversation ? '; the conversation moves there' : ''}. Undo puts everything back`;
  const items: ChoiceItem[] = conflicts.length
    ? [
        { choice: 'mine', label: `$(check) Restore, keep ${one ? 'my changed file' : `my ${conflicts.length} changed files`}`, detail: writes },
        {
          choice: 'theirs',
          label: `$(history) Restore, take the node's version of ${one ? 'it' : 'them'}`,
          detail: one ? `${conflicts[0].key}: ${takeNodeWords(conflicts[0]).toLowerCase()}; Undo gives yours back` : `${conflicts.length} files you changed since; Undo gives yours back`,
        },
        { choice: 'each', label: '$(list-selection) Choose per file…', description: 'keep mine, take the node’s, or merge' },
      ]
    : [{ choice: 'restore', label: '$(check) Restore', detail: writes }];
  if (hidden > 0) items.push({ choice: 'previewAll', label: `$(multiple-windows) Preview all ${t.files} files`, description: `the first ${t.files - hidden} are shown` });
  items.push({ choice: 'cancel', label: '$(close) Cancel', description: 'write nothing' });
  const unrestorable = plan.items.filter((i) => i.action === 'unrestorable');
  if (unrestorable.length || plan.notes.length) {
    items.push({ label: 'Left as they are', kind: vscode.QuickPickItemKind.Separator });
    for (const i of unrestorable) items.push({ label: `$(circle-slash) ${i.key}`, detail: i.reason ?? 'not restorable' });
    for (const note of plan.notes) items.push({ label: `$(info) ${note}` });
  }
  const choice = await choose(items, `${title}? ${planWords({ ...t, kept: 0 })}`, 'Look through the preview, then choose');
  if (!choice || choice === 'cancel') return undefined;
  if (choice === 'previewAll') return 'previewAll';
  const res = new Map<string, Resolution>();
  for (const i of conflicts) {
    if (choice === 'mine' || choice === 'theirs') res.set(i.key, choice);
    else {
      const r = await decideOne(i);
      if (!r) return undefined;
      res.set(i.key, r);
    }
  }
  return { restore: res };
}

/** One conflicting file: keep mine, take the node's, or merge (when both sides are files). */
async function decideOne(i: PlanItem): Promise<Resolution | undefined> {
  const items: (vscode.QuickPickItem & { r: Resolution })[] = [
    { r: 'mine', label: '$(account) Keep mine', detail: 'Leave the file as it is now' },
    { r: 'theirs', label: '$(history) Take the node’s', detail: `${takeNodeWords(i)} (Undo gives yours back)` },
    ...(i.now.kind === 'file' && i.target.kind === 'file'
      ? [
          {
            r: 'merge' as const,
            label: '$(git-merge) Merge',
            detail: 'Three-way merge with the agent\u2019s version as the base: your lines stay; where both changed the same lines, conflict markers',
          },
        ]
      : []),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: `${basename(i.path)}: ${i.reason ?? 'changed since the latest checkpoint'}`, placeHolder: i.key, ignoreFocusOut: true });
  return pick?.r;
}

/** A quick pick that stays open while the user reads the editor; rows without a choice only inform. */
function choose(items: ChoiceItem[], title: string, placeholder: string): Promise<Choice | undefined> {
  const qp = vscode.window.createQuickPick<ChoiceItem>();
  qp.title = title;
  qp.placeholder = placeholder;
  qp.items = items;
  qp.ignoreFocusOut = true;
  qp.matchOnDetail = true;
  return new Promise((resolve) => {
    let chosen: Choice | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0]?.choice;
      if (chosen) qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
  });
}
