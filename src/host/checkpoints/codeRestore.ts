// "Code follows the tree" in the editor: Move here offers conversation and code /
// conversation only / code only when the code at the node differs; every restore is previewed in VS
// Code's multi-file diff editor first (now → the node), conflicts are decided per file (keep mine, take
// the node's, merge), and the write goes through the pi running the session when there is one (files
// and leaf as one action), else straight to the files with pi-tree's journal. Undo and redo are exact.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { PiUnresponsiveError } from '../../core/bridge/discovery.js';
import { diffCode, planCode, redoCode, sessionCode, undoCode, writeCode, type CodeChange, type SessionCode } from '../../core/checkpoints/index.js';
import { planCounts, type RestorePlan } from '../../core/checkpoints/index.js';
import { needsConfirming } from '../../core/checkpoints/index.js';
import { within } from '../../core/checkpoints/index.js';
import { canonicalCwd } from '../../core/checkpoints/index.js';
import type { Session } from '../../core/session/session.js';
import type { MoveReply } from '../../protocol.js';
import type { PiGateway } from '../bridge/piGateway.js';
import type { SessionActions } from '../panels/sessionActions.js';
import type { CodeDocuments } from './codeDocuments.js';
import { decideRestore } from './restoreChoice.js';

/** How many files the restore preview opens with (the rest on demand). */
const PREVIEW_FIRST = 20;

export type MoveChoice = 'both' | 'conversation' | 'code';
export type OnMove = 'ask' | 'conversationAndCode' | 'conversationOnly';

export interface CodeRestoreDeps {
  agentDir(): string;
  gateway?: PiGateway;
  docs: CodeDocuments;
  onMove(): OnMove;
  log(msg: string): void;
  /** Says what an entry is, for titles ("the answer “Done: …”"). */
  describe(session: Session, id: string): string;
}

type MoveResult = MoveReply & { cancelled?: boolean };

/** The documents of a restore preview: [the file, now, at the node] each, and how many files it leaves out. */
interface PreviewDocs {
  resources: [vscode.Uri, vscode.Uri, vscode.Uri][];
  /** The bytes of each resource's two sides, where known. */
  sizes: number[];
  hidden: number;
}

/** At most this much of a preview is opened before the user chooses the code (the rest opens with the preview). */
const WARM_BYTES = 16 * 1024 * 1024;

const cancelledMove = (s: Session): MoveResult => ({ leafId: s.leafId, moved: false, cancelled: true });

export class CodeRestore {
  constructor(private readonly deps: CodeRestoreDeps) {}

  code(session: Session): SessionCode {
    // The user runs pi-tree for the workspace's folders: a session working in one of them needs no
    // confirmation per file (pi's folder layout backs the others).
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => canonicalCwd(f.uri.fsPath));
    return sessionCode(session, { agentDir: this.deps.agentDir(), vouched: (cwd) => folders.some((f) => within(cwd, f)) });
  }

  /**
   * Move here with the code: when the node's code differs from the files now, asks what to move (or
   * does what the setting says); conversation only is the plain move.
   */
  async moveTo(actions: SessionActions, session: Session, file: string, id: string | null): Promise<MoveResult> {
    if (id === null || this.deps.onMove() === 'conversationOnly') return actions.moveTo(id);
    let plan: RestorePlan;
    try {
      plan = await this.plan(session, id);
    } catch (e) {
      this.deps.log(`code at ${id}: ${String(e)}`);
      void vscode.window.showWarningMessage(`pi-tree could not work out the code at this node (${(e as Error).message}); the conversation moves, the files stay as they are.`);
      return actions.moveTo(id);
    }
    if (!plan.items.some((i) => i.action !== 'unrestorable')) return actions.moveTo(id);
    const asks = this.deps.onMove() !== 'conversationAndCode';
    // The preview is made ready while the user reads the choice (and left unused when it is not the code).
    const warmed = asks ? this.warm(session, plan) : undefined;
    const choice = asks ? await this.ask(plan, session, id) : 'both';
    if (!choice) return cancelledMove(session);
    if (choice === 'conversation') return actions.moveTo(id);
    if (choice === 'code') {
      const done = await this.restore(session, file, id, plan, undefined, warmed);
      return { leafId: session.leafId, moved: false, ...(done ? {} : { cancelled: true }) };
    }
    let moved: MoveResult | undefined;
    const done = await this.restore(
      session,
      file,
      id,
      plan,
      {
        leaf: async () => (await actions.piTarget(id)).leaf,
        // Without pi, the live question comes before any file is written.
        confirm: () => actions.guard('move the leaf'),
        fork: async () => void (await actions.forkInstead((await actions.piTarget(id)).leaf)),
        run: async () => {
          moved = await actions.moveTo(id, { asked: true });
          if (moved.cancelled) throw new vscode.CancellationError();
        },
      },
      warmed,
    );
    if (!done) return cancelledMove(session);
    await session.refresh();
    return moved ?? { leafId: session.leafId, moved: true };
  }

  async plan(session: Session, id: string): Promise<RestorePlan> {
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'pi Tree: the code at this node' }, () => planCode(this.code(session), id));
  }

  private async ask(plan: RestorePlan, session: Session, id: string): Promise<MoveChoice | undefined> {
    const c = planCounts(plan);
    const files = `${c.create + c.modify + c.delete + c.conflict} file${c.create + c.modify + c.delete + c.conflict === 1 ? '' : 's'}`;
    const extra = [c.conflict ? `${c.conflict} changed since (you decide)` : '', c.unrestorable ? `${c.unrestorable} not restorable` : ''].filter(Boolean).join(', ');
    const items: (vscode.QuickPickItem & { choice: MoveChoice })[] = [
      { choice: 'both', label: '$(history) Conversation and code', detail: `Move the leaf and restore ${files} as they were there${extra ? ` (${extra})` : ''}; previewed first` },
      { choice: 'conversation', label: '$(comment-discussion) Conversation only', detail: 'Move the leaf; the files stay as they are now' },
      { choice: 'code', label: '$(file-code) Code only', detail: `Restore ${files}; the leaf stays where it is` },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: `Move to ${this.deps.describe(session, id)}: the code there differs from the files now`, placeHolder: 'What should move?' });
    return pick?.choice;
  }

  /** Restore the code at `id` only (the node menu, the details pane, the sidebar). */
  async restoreCode(session: Session, file: string, id: string): Promise<boolean> {
    const plan = await this.plan(session, id);
    if (!plan.items.length) {
      void vscode.window.showInformationMessage(`The files are already as they were at ${this.deps.describe(session, id)} (as far as the agent changed them).`);
      return false;
    }
    return this.restore(session, file, id, plan, undefined);
  }

  /**
   * Previews, asks, and writes. `moveLeaf`: the conversation moves too (after the files; a failure
   * puts the files back). Resolves false when the user cancelled or nothing was written.
   */
  private async restore(session: Session, file: string, id: string, plan: RestorePlan, moveLeaf: LeafMove | undefined, warmed?: Promise<PreviewDocs>): Promise<boolean> {
    if (!vscode.workspace.isTrusted) throw new Error('Restoring files is off in Restricted Mode: trust this workspace to let pi-tree write to its files.');
    const sc = this.code(session);
    const writable = plan.items.filter((i) => i.action !== 'unrestorable');
    if (!writable.length) {
      void vscode.window.showWarningMessage(`Nothing can be restored: ${plan.items.map((i) => `${i.key} (${i.reason})`).join('; ')}`);
      return false;
    }
    const title = `Restore the code at ${this.deps.describe(session, id)}`;
    let shown = await this.preview(sc, plan, title, PREVIEW_FIRST, warmed);
    let decision = await decideRestore(plan, title, !!moveLeaf, shown.hidden);
    if (decision === 'previewAll') {
      await closePreview(shown.label);
      shown = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `pi Tree: opening the preview of ${writable.length} files` }, () =>
        this.preview(sc, plan, title, Infinity),
      );
      decision = await decideRestore(plan, title, !!moveLeaf, 0);
    }
    // Decided: the preview is out of date either way; the tree comes back to the front.
    await closePreview(shown.label);
    const resolutions = decision === 'previewAll' ? undefined : decision?.restore;
    if (!resolutions) return false;
    const viaPi = await this.piRuns(file);
    const outside = needsConfirming(plan, sc.cwdVouched);
    if (outside.length && !(await confirmOutside(outside, sc))) return false;
    try {
      if (viaPi && this.deps.gateway) {
        const r = await this.deps.gateway.run(
          file,
          'restoreCode',
          {
            targetId: id,
            fingerprint: plan.fingerprint,
            ...(moveLeaf ? { conversation: true } : {}),
            resolutions: Object.fromEntries(resolutions),
            ...(outside.length ? { allowOutside: outside } : {}),
          },
          moveLeaf ? session : undefined,
        );
        if (r.via === 'cancelled') return false;
        if (r.via === 'pi') {
          await session.refresh();
          this.done(session, file, r.data.written.length, r.data.skipped, `through pi ${r.pid}`, r.data.merged ?? [], r.data.warnings ?? []);
          return true;
        }
      }
      if (moveLeaf) {
        const ok = await moveLeaf.confirm();
        if (ok === 'fork') await moveLeaf.fork();
        if (ok !== true) return false;
      }
      const leaf = moveLeaf && { targetId: await moveLeaf.leaf(), fromId: session.leafId, run: moveLeaf.run };
      const res = await writeCode(sc, plan, { resolutions, confirmed: new Set(outside), ...(leaf ? { moveLeaf: leaf } : {}) });
      this.done(session, file, res.written.length, res.skipped, '', res.merged, res.warnings);
      return true;
    } catch (e) {
      if (e instanceof vscode.CancellationError) return false;
      throw e;
    }
  }

  /**
   * The preview's documents: each file now → at the node, conflicts first, at most `first` of them
   * (VS Code resolves every pair before it draws the preview: seconds at 1,000).
   */
  private async previewDocs(sc: SessionCode, plan: RestorePlan, first: number): Promise<PreviewDocs> {
    const writable = plan.items.filter((i) => i.action !== 'unrestorable');
    const shown = [...writable.filter((i) => i.action === 'conflict'), ...writable.filter((i) => i.action !== 'conflict')].slice(0, first);
    // The node's bytes of the shown files in one read of the store (a git process per file took seconds at 1,000).
    const wanted = shown.flatMap((i) => {
      const t = plan.sides.get(i.key)!.target;
      return t.kind === 'file' && !t.bytes ? [t.sha] : [];
    });
    const blobs = wanted.length ? ((await sc.checkpoints.store?.readBlobs([...new Set(wanted)])) ?? new Map<string, Buffer>()) : new Map<string, Buffer>();
    const sizes: number[] = [];
    const resources = shown.map((item): [vscode.Uri, vscode.Uri, vscode.Uri] => {
      const sides = plan.sides.get(item.key)!;
      const target = sides.target.kind === 'file' ? (sides.target.bytes ?? blobs.get(sides.target.sha)) : undefined;
      sizes.push((target?.length ?? 0) + (sides.now.kind === 'file' ? (sides.now.bytes?.length ?? 0) : 0));
      const left = sides.now.kind === 'file' ? vscode.Uri.file(item.path) : this.deps.docs.put(undefined, item.path, 'absent now');
      const right = this.deps.docs.put(target, item.path, item.action === 'delete' ? 'absent at the node' : 'at the node');
      return [vscode.Uri.file(item.path), left, right];
    });
    return { resources, sizes, hidden: writable.length - shown.length };
  }

  /**
   * The first preview's documents, opened in the background while the user reads the choice: in a
   * new window VS Code then loads their models, activates their languages and starts its diff
   * worker before the click instead of after it (the preview's first diff came ~1 s sooner).
   */
  private warm(session: Session, plan: RestorePlan): Promise<PreviewDocs> {
    const docs = this.previewDocs(this.code(session), plan, PREVIEW_FIRST);
    void docs
      .then(async ({ resources, sizes }) => {
        const t0 = performance.now();
        let budget = WARM_BYTES;
        const uris = resources.filter((_, i) => (budget -= sizes[i]) >= 0).flatMap(([, now, node]) => [now, node]);
        await Promise.all(uris.map((u) => vscode.workspace.openTextDocument(u).then(undefined, () => undefined)));
        // Any request to VS Code's editor worker starts it (links are computed there); the diffs run in it.
        if (uris.length) await vscode.commands.executeCommand('vscode.executeLinkProvider', uris[0]).then(undefined, () => undefined);
        this.deps.log(`restore preview: ${uris.length} documents ready in ${(performance.now() - t0).toFixed(0)} ms`);
      })
      .catch(() => undefined);
    return docs;
  }

  /** VS Code's multi-file diff editor with `first` files of the plan. Resolves with its tab's label and how many files it leaves out. */
  private async preview(sc: SessionCode, plan: RestorePlan, title: string, first: number, warmed?: Promise<PreviewDocs>): Promise<{ label: string; hidden: number }> {
    const t0 = performance.now();
    const { resources, hidden } = (await warmed?.catch(() => undefined)) ?? (await this.previewDocs(sc, plan, first));
    const c = planCounts(plan);
    const conflicts = c.conflict ? `, ${c.conflict} conflict${c.conflict === 1 ? '' : 's'}` : '';
    const label = `${title}: ${c.create} new, ${c.modify} changed, ${c.delete} deleted${conflicts}${hidden ? ` (the first ${resources.length} shown)` : ''}`;
    const t1 = performance.now();
    await vscode.commands.executeCommand('vscode.changes', label, resources);
    this.deps.log(
      `restore preview: ${resources.length} of ${resources.length + hidden} files, their contents ${(t1 - t0).toFixed(0)} ms, the diff editor opened ${(performance.now() - t1).toFixed(0)} ms later`,
    );
    return { label, hidden };
  }

  private done(session: Session, file: string, written: number, skipped: { path: string; why: string }[], how: string, merged: { path: string; conflicts: number }[], warnings: string[]): void {
    const left = skipped.length ? ` ${skipped.length} left as they are (changed meanwhile): ${skipped.map((s) => basename(s.path)).join(', ')}.` : '';
    for (const w of warnings) void vscode.window.showWarningMessage(`pi-tree: ${w}`);
    if (merged.length) {
      const names = merged.map((m) => `${basename(m.path)} (${m.conflicts} conflict${m.conflicts === 1 ? '' : 's'})`).join(', ');
      void vscode.window.showWarningMessage(`Merged with conflict markers left to settle: ${names}.`, 'Open').then((a) => {
        if (a === 'Open') for (const m of merged) void vscode.window.showTextDocument(vscode.Uri.file(m.path), { preview: false });
      });
    }
    void vscode.window.showInformationMessage(`Restored ${written} file${written === 1 ? '' : 's'}${how ? ` ${how}` : ''}.${left}`, 'Undo').then((a) => {
      if (a === 'Undo') void this.undo(session, file).catch((e: unknown) => void vscode.window.showErrorMessage((e as Error).message));
    });
  }

  /** Does a pi with the bridge run `file`, answering or not? (One that does not answer is asked about by the gateway: wait or cancel, never the file.) */
  private async piRuns(file: string): Promise<boolean> {
    try {
      return !!(await this.deps.gateway?.live(file));
    } catch (e) {
      if (e instanceof PiUnresponsiveError) return true;
      throw e;
    }
  }

  async undo(session: Session, file: string, redo = false): Promise<void> {
    if (!vscode.workspace.isTrusted) throw new Error('Restoring files is off in Restricted Mode.');
    const gw = this.deps.gateway;
    if (gw && (await this.piRuns(file))) {
      const r = await gw.run(file, 'codeUndo', redo ? { redo: true } : {});
      if (r.via === 'pi') {
        await session.refresh();
        return this.undone(r.data, redo, async () => void (await gw.run(file, 'codeUndo', { ...(redo ? { redo: true } : {}), force: true })));
      }
      if (r.via === 'cancelled') return;
    }
    const sc = this.code(session);
    // The conversation goes back with the files when the restore moved it (and it has not moved on since).
    const moveLeaf = async (to: string | null, expect: string | null) => {
      await session.refresh();
      if (session.leafId !== expect) return false;
      await session.moveTo(to);
      return true;
    };
    const r = await (redo ? redoCode(sc, { moveLeaf }) : undoCode(sc, { moveLeaf }));
    return this.undone(r, redo, async () => void (await (redo ? redoCode(sc, { force: true, moveLeaf }) : undoCode(sc, { force: true, moveLeaf }))));
  }

  private async undone(r: { written: string[]; conflicts: string[]; leafMoved?: boolean; leafStayed?: boolean; warnings?: string[] }, redo: boolean, force: () => Promise<void>): Promise<void> {
    for (const w of r.warnings ?? []) void vscode.window.showWarningMessage(`pi-tree: ${w}`);
    if (!r.conflicts.length) {
      const n = r.written.length;
      const conv = r.leafMoved ? `, and moved the conversation ${redo ? 'there again' : 'back'}` : r.leafStayed ? '; the conversation moved on since the restore and stays where it is' : '';
      void vscode.window.showInformationMessage(`${redo ? 'Restored again' : 'Put back'} ${n} file${n === 1 ? '' : 's'}${conv}.`);
      return;
    }
    const conflicts = r.conflicts;
    const FORCE = redo ? 'Restore Them Anyway' : 'Put Them Back Anyway';
    const pick = await vscode.window.showWarningMessage(
      `${conflicts.length} file${conflicts.length === 1 ? ' was' : 's were'} changed since the restore, so nothing was ${redo ? 'restored again' : 'put back'}.`,
      { modal: true, detail: conflicts.join('\n') },
      FORCE,
    );
    if (pick === FORCE) await force();
  }

  /** The code at `id` against the files now (or the code at `other`), in the multi-file diff editor. */
  async showDiff(session: Session, id: string, other?: { session: Session; id: string }): Promise<CodeChange[]> {
    const sc = this.code(session);
    const changes = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'pi Tree: comparing code' }, () =>
      other ? diffCode(sc, id, other.id, other.session === session ? undefined : this.code(other.session)) : diffCode(sc, id, 'now'),
    );
    if (!changes.length) {
      void vscode.window.showInformationMessage(other ? 'The code is the same at both nodes (as far as it is known).' : 'The files now are as they were at this node (as far as it is known).');
      return changes;
    }
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    for (const c of changes) {
      if (c.status === 'unknown') continue;
      const left = this.deps.docs.put(c.a.kind === 'file' ? c.a.bytes : undefined, c.path, 'at the node');
      const right = other
        ? this.deps.docs.put(c.b.kind === 'file' ? c.b.bytes : undefined, c.path, 'at the other node')
        : c.b.kind === 'file'
          ? vscode.Uri.file(c.path)
          : this.deps.docs.put(undefined, c.path, 'absent now');
      resources.push([vscode.Uri.file(c.path), left, right]);
    }
    const unknown = changes.filter((c) => c.status === 'unknown').length;
    await vscode.commands.executeCommand(
      'vscode.changes',
      `Code at ${this.deps.describe(session, id)} → ${other ? this.deps.describe(other.session, other.id) : 'now'} (${resources.length} files${unknown ? `, ${unknown} not known` : ''})`,
      resources,
    );
    return changes;
  }
}

/** A move of the conversation with the files, when no pi runs the session: asked first, then run after the files. */
interface LeafMove {
  /**
   * Where the leaf goes (pi's rule: a user message's parent), as the journal records it: undo moves the
   * leaf back only while it is still there, and redo moves it there again.
   */
  leaf(): Promise<string | null>;
  confirm(): Promise<boolean | 'fork'>;
  fork(): Promise<void>;
  run(): Promise<void>;
}

/** Files outside the working folder (or a folder no one vouched for) are confirmed by name, all at once. */
async function confirmOutside(paths: readonly string[], sc: SessionCode): Promise<boolean> {
  const WRITE = 'Write Them';
  const why = sc.cwdVouched
    ? `${paths.length} file${paths.length === 1 ? ' is' : 's are'} outside the session\u2019s working folder (${sc.cwd}).`
    : `The session says it works in ${sc.cwd}, which is neither a folder of this workspace nor where pi keeps it.`;
  const pick = await vscode.window.showWarningMessage(`${why} Restore writes ${paths.length === 1 ? 'it' : 'these'}:`, { modal: true, detail: paths.join('\n') }, WRITE);
  return pick === WRITE;
}

/** Closes the preview's tab (found by its label, wherever it is). */
async function closePreview(label: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label.startsWith(label));
  if (tabs.length) await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
}
