// Adopting a variant from the variants view, as a restore is done (checkpoints/codeRestore.ts): its
// files previewed in VS Code's multi-file diff editor (your file → the variant's), the files you changed
// since the node decided by you (restoreChoice.ts: keep mine, take the variant's, merge), files outside
// the working folder confirmed by name, then written by the core's adoptVariant; a notification offers
// Undo (undoVariantAdopt; files changed since are asked about), and the variant's session opens in its tree.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RestorePlan } from '../../core/checkpoints/index.js';
import type { CodeDocuments } from '../checkpoints/codeDocuments.js';
import { decideRestore } from '../checkpoints/restoreChoice.js';
import type { VariantsRunState } from './variantsRunState.js';
import type { AdoptSession, VariantsService } from './variantsService.js';

export interface AdoptDeps {
  variants: VariantsService;
  docs: CodeDocuments;
  openTree(file: string): Promise<void>;
}

/** Adopts variant `index` of the run; false when the user cancelled or nothing was to adopt. */
export async function adoptVariantFiles(deps: AdoptDeps, state: VariantsRunState, index: number): Promise<boolean> {
  if (!vscode.workspace.isTrusted)
    throw new Error(
      'Adopting files is off in Restricted Mode: trust this workspace to let pi-tree write to its files.',
    );
  const o = state.outcome(index);
  if (!o.session || state.isDiscarded(index)) throw new Error(`Variant ${index + 1} has no session to adopt.`);
  if (!state.ended(index)) throw new Error(`Variant ${index + 1} is still running: adopt it once its turn is done.`);
  const a = await deps.variants.openAdopt(o.session);
  const writable = a.plan.items.filter((i) => i.action !== 'unrestorable');
  if (!writable.length) {
    void vscode.window.showInformationMessage(
      `Variant ${index + 1} changed no file that is not already as it has it in your folder.`,
    );
    return false;
  }
  const title = `Adopt variant ${index + 1} (${o.model ?? "pi's default model"})`;
  const label = await preview(deps.docs, a, title);
  const decision = await decideRestore(a.plan, title, false, 0, { verb: 'Adopt', theirs: 'the variant’s' });
  await closeTabs(label);
  const resolutions = decision === 'previewAll' ? undefined : decision?.restore;
  if (!resolutions) return false;
  const outside = writable.filter((i) => i.outside).map((i) => i.path);
  if (outside.length) {
    const WRITE = outside.length === 1 ? 'Write It' : 'Write Them';
    const pick = await vscode.window.showWarningMessage(
      outside.length === 1
        ? "One of the variant's files is outside your working folder. Adopt writes it too:"
        : `${outside.length} of the variant's files are outside your working folder. Adopt writes them too:`,
      { modal: true, detail: outside.join('\n') },
      WRITE,
    );
    if (pick !== WRITE) return false;
  }
  const w = await a.write(resolutions, outside);
  state.adopted(index, a);
  for (const warning of w.warnings) void vscode.window.showWarningMessage(`pi-tree: ${warning}`);
  if (w.merged.length)
    void vscode.window.showWarningMessage(
      `Merged with conflict markers left to settle: ${w.merged.map((m) => m.path).join(', ')}.`,
    );
  const left = w.skipped.length ? ` ${w.skipped.length} left as they are (changed meanwhile).` : '';
  void vscode.window
    .showInformationMessage(
      `Adopted ${w.written.length} file${w.written.length === 1 ? '' : 's'} of variant ${index + 1}.${left}`,
      'Undo',
    )
    .then((pick) => {
      if (pick === 'Undo')
        void undoAdopt(state, index).catch((e: unknown) => void vscode.window.showErrorMessage((e as Error).message));
    });
  // The variant's conversation is where the adopted code came from: its tree opens at its leaf.
  await deps.openTree(o.session).catch(() => undefined);
  return true;
}

/** Puts back what variant `index`'s adopt wrote; files changed since are asked about first. */
export async function undoAdopt(state: VariantsRunState, index: number): Promise<boolean> {
  const a = state.adoptOf(index);
  if (!a) throw new Error(`Variant ${index + 1} was not adopted in this run.`);
  let r = await a.undo(false);
  if (r.conflicts.length) {
    const FORCE = 'Put Them Back Anyway';
    const pick = await vscode.window.showWarningMessage(
      `${r.conflicts.length} file${r.conflicts.length === 1 ? ' was' : 's were'} changed since the adopt, so nothing was put back.`,
      { modal: true, detail: r.conflicts.join('\n') },
      FORCE,
    );
    if (pick !== FORCE) return false;
    r = await a.undo(true);
  }
  state.adopted(index, undefined);
  void vscode.window.showInformationMessage(
    `Put back ${r.written.length} file${r.written.length === 1 ? '' : 's'} as they were before the adopt.`,
  );
  return true;
}

/** The adopt's preview: each file yours → the variant's. Resolves with the tab's label. */
async function preview(docs: CodeDocuments, a: AdoptSession, title: string): Promise<string> {
  const resources = adoptResources(docs, a.plan, a.folder);
  const label = `${title}: ${resources.length} file${resources.length === 1 ? '' : 's'}`;
  await vscode.commands.executeCommand('vscode.changes', label, resources);
  return label;
}

/** [the file, yours now, the variant's] for each file of the plan, conflicts first. */
export function adoptResources(
  docs: CodeDocuments,
  plan: RestorePlan,
  folder: string,
): [vscode.Uri, vscode.Uri, vscode.Uri][] {
  const writable = plan.items.filter((i) => i.action !== 'unrestorable');
  const ordered = [
    ...writable.filter((i) => i.action === 'conflict'),
    ...writable.filter((i) => i.action !== 'conflict'),
  ];
  return ordered.map((item) => {
    const sides = plan.sides.get(item.key);
    const left =
      sides?.now.kind === 'file' ? vscode.Uri.file(item.path) : docs.put(undefined, item.path, 'absent in your folder');
    const target = sides?.target;
    const inVariant = join(folder, item.key);
    const right =
      target?.kind === 'file'
        ? target.bytes
          ? docs.put(target.bytes, item.path, "the variant's")
          : existsSync(inVariant)
            ? vscode.Uri.file(inVariant)
            : docs.put(undefined, item.path, 'not readable')
        : docs.put(undefined, item.path, 'deleted by the variant');
    return [vscode.Uri.file(item.path), left, right];
  });
}

async function closeTabs(label: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label.startsWith(label));
  if (tabs.length) await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
}
