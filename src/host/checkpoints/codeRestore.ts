// The restore in the editor: every restore is previewed in VS Code's multi-file diff editor first (now →
// the node), conflicts are decided per file (keep mine, take the node's, merge), files outside the
// working folder are confirmed by name, and the write goes through the pi running the session when
// there is one (files and leaf as one action there), else straight to the files with pi-tree's
// journal; the notifications, and undo and redo, which are exact. Move here's flow (what moves, the
// live question, the leaf) is panels/moveHere.ts's: it calls the steps here in turn, so that the
// conversation is moved by one owner and never from inside a restore.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { PiUnresponsiveError } from '../../core/piClient/discovery.js';
import {
  diffCode,
  finishPending,
  planCode,
  putCodeBack,
  recordLeafMoved,
  redoCode,
  sessionCode,
  undoCode,
  writeCode,
  writeCodeEarly,
  type CodeChange,
  type SessionCode,
} from '../../core/checkpoints/index.js';
import { fileCount, flipConflictWords, planTally, planWords, type RestorePlan } from '../../core/checkpoints/index.js';
import { needsConfirming, type Resolution } from '../../core/checkpoints/index.js';
import { within } from '../../core/checkpoints/index.js';
import { canonicalCwd } from '../../core/checkpoints/index.js';
import type { Session } from '../../core/session/session.js';
import type { PiGateway } from '../runningPi/piGateway.js';
import type { CodeDocuments } from './codeDocuments.js';
import { decideRestore } from './restoreChoice.js';
import { decideBesidePreview } from './previewClosed.js';
import type { UndoStatus } from './undoStatus.js';
import type { ConflictMarks } from './conflictMarks.js';

/** How many files the restore preview opens with (the rest on demand). */
const PREVIEW_FIRST = 20;

export interface CodeRestoreDeps {
  agentDir(): string;
  gateway?: PiGateway;
  docs: CodeDocuments;
  log(msg: string): void;
  /** Says what an entry is, for titles ("the answer “Done: …”"). */
  describe(session: Session, id: string): Promise<string>;
  /** The status bar's Undo, kept while the last restore can be undone. */
  undoStatus?: UndoStatus;
  /** The conflicts marked in the open preview. */
  marks?: ConflictMarks;
}

/** The documents of a restore preview: [the file, now, at the node] each, and how many files it leaves out. */
export interface PreviewDocs {
  resources: [vscode.Uri, vscode.Uri, vscode.Uri][];
  /** The bytes of each resource's two sides, where known. */
  sizes: number[];
  hidden: number;
}

/** A restore the user decided on: previewed, its conflicts settled, its files outside confirmed; nothing written yet. */
export interface DecidedRestore {
  sc: SessionCode;
  id: string;
  plan: RestorePlan;
  resolutions: Map<string, Resolution>;
  /** The files outside the working folder (or in a folder no one vouched for), confirmed by name. */
  outside: string[];
  /** A pi with the bridge ran the session when it was decided (answering or not). */
  viaPi: boolean;
}

/** The files written with the conversation's move due (the journal says so): recorded with leafMoved, or undone with putBack. */
export interface WrittenRestore {
  d: DecidedRestore;
  res: Awaited<ReturnType<typeof writeCode>>;
}

/** At most this much of a preview is opened before the user chooses the code (the rest opens with the preview). */
const WARM_BYTES = 16 * 1024 * 1024;

export class CodeRestore {
  constructor(private readonly deps: CodeRestoreDeps) {}

  code(session: Session): SessionCode {
    // The user runs pi-tree for the workspace's folders: a session working in one of them needs no
    // confirmation per file (pi's folder layout backs the others).
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => canonicalCwd(f.uri.fsPath));
    return sessionCode(session, {
      agentDir: this.deps.agentDir(),
      vouched: (cwd) => folders.some((f) => within(cwd, f)),
    });
  }

  /** The read-only documents of the diff editors (the variants view's diffs show theirs there too). */
  get documents(): CodeDocuments {
    return this.deps.docs;
  }

  /** What an entry is, in a title's words. */
  describe(session: Session, id: string): Promise<string> {
    return this.deps.describe(session, id);
  }

  async plan(session: Session, id: string): Promise<RestorePlan> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'pi Tree: the code at this node' },
      async () => {
        await this.settled();
        const sc = this.code(session);
        await this.finishInterrupted(sc);
        return planCode(sc, id);
      },
    );
  }

  /**
   * The files of a restore, undo or redo a kill left half done, finished before a new plan or an undo
   * (as `pi-tree restore` and pi finish them): a plan made over half-written files, or a restore written
   * before an older one is finished over it, would leave the files at two nodes. A conversation move
   * still due stays for the session's next restore through the CLI or pi.
   */
  private async finishInterrupted(sc: SessionCode): Promise<void> {
    const done = await finishPending(sc, { leaves: false });
    for (const j of done.finished) {
      this.deps.log(`restore: finished an interrupted restore (${fileCount(j.files.length)}, journal ${j.id})`);
      void vscode.window.showInformationMessage(
        `pi-tree finished a restore that was interrupted (${fileCount(j.files.length)}).`,
      );
    }
    for (const w of done.warnings) void vscode.window.showWarningMessage(`pi-tree: ${w}`);
  }

  /** Restore the code at `id` only (the node menu, the details pane, the sidebar). */
  async restoreCode(session: Session, file: string, id: string): Promise<boolean> {
    const plan = await this.plan(session, id);
    if (!plan.items.length) {
      void vscode.window.showInformationMessage(
        `The files are already as they were at ${await this.deps.describe(session, id)} (as far as the agent changed them).`,
      );
      return false;
    }
    return this.restore(session, file, id, plan);
  }

  /**
   * The code alone, planned already (also Move here's "Code only"): previewed, decided, written through
   * pi or with the journal. Resolves false when the user cancelled or nothing was written.
   */
  async restore(
    session: Session,
    file: string,
    id: string,
    plan: RestorePlan,
    warmed?: Promise<PreviewDocs>,
  ): Promise<boolean> {
    const d = await this.decide(session, file, id, plan, false, warmed);
    if (!d) return false;
    const t0 = performance.now();
    const viaPi = await this.throughPi(session, file, d, false);
    if (viaPi !== 'none') return viaPi === 'done';
    // The user waits for the files; where the code now is gets recorded after (under the project's
    // restore lock, which an undo waits for; a plan made meanwhile waits for it here).
    const { recorded, ...res } = await writeCodeEarly(d.sc, d.plan, {
      resolutions: d.resolutions,
      confirmed: new Set(d.outside),
    });
    const filesMs = performance.now() - t0;
    this.recording = recorded.then(({ warnings, ms }) => {
      this.deps.log(
        `restore: ${fileCount(res.written.length)} written in ${filesMs.toFixed(0)} ms (the files ${res.ms.apply} ms), recorded ${ms} ms after`,
      );
      for (const w of warnings) void vscode.window.showWarningMessage(`pi-tree: ${w}`);
    });
    this.done(session, file, res.written.length, res.skipped, '', res.merged, res.warnings);
    return true;
  }

  /** The recording of the last restore written here, while it is under way. */
  private recording: Promise<void> = Promise.resolve();

  /** Resolves once where the code is has been recorded for every restore written here (see restore). */
  settled(): Promise<void> {
    return this.recording;
  }

  /**
   * Previews the plan and asks: the conflicts decided, the files outside confirmed. Nothing is written.
   * `withConversation`: the question says the conversation moves too. Undefined: the user cancelled,
   * or nothing can be restored.
   */
  async decide(
    session: Session,
    file: string,
    id: string,
    plan: RestorePlan,
    withConversation: boolean,
    warmed?: Promise<PreviewDocs>,
  ): Promise<DecidedRestore | undefined> {
    if (!vscode.workspace.isTrusted)
      throw new Error(
        'Restoring files is off in Restricted Mode: trust this workspace to let pi-tree write to its files.',
      );
    const sc = this.code(session);
    const writable = plan.items.filter((i) => i.action !== 'unrestorable');
    if (!writable.length) {
      void vscode.window.showWarningMessage(
        `Nothing can be restored: ${plan.items.map((i) => `${i.key} (${i.reason})`).join('; ')}`,
      );
      return undefined;
    }
    // The pi running the session (if one does) plans the same restore while the user reads the preview,
    // so that its write need not plan again after the click.
    void this.deps.gateway?.planRestore(file, id);
    const title = `Restore the code at ${await this.deps.describe(session, id)}`;
    this.deps.marks?.mark(
      plan.items
        .filter((i) => i.action === 'conflict')
        .map((i) => ({ path: i.path, why: i.reason ?? 'changed since the latest checkpoint' })),
    );
    let shown: { label: string; hidden: number } | undefined;
    let decision: Awaited<ReturnType<typeof decideRestore>>;
    try {
      shown = await this.preview(sc, plan, title, PREVIEW_FIRST, warmed);
      const hidden = shown.hidden;
      decision = await decideBesidePreview(shown.label, (closed) =>
        decideRestore(plan, title, withConversation, hidden, undefined, closed),
      );
      if (decision === 'previewAll') {
        await closePreview(shown.label);
        shown = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `pi Tree: opening the preview of ${writable.length} files`,
          },
          () => this.preview(sc, plan, title, Infinity),
        );
        decision = await decideBesidePreview(shown.label, (closed) =>
          decideRestore(plan, title, withConversation, 0, undefined, closed),
        );
      }
    } finally {
      this.deps.marks?.clear();
    }
    // Decided: the preview is out of date either way; the tree comes back to the front. A restore does
    // not wait for the tab to close (a diff editor of many files took a second of the user's wait).
    const closed = closePreview(shown.label);
    const resolutions = decision === 'previewAll' ? undefined : decision?.restore;
    if (!resolutions) {
      await closed;
      return undefined;
    }
    const viaPi = await this.piRuns(file);
    const outside = needsConfirming(plan, sc.cwdVouched);
    if (outside.length && !(await confirmOutside(outside, sc))) return undefined;
    return { sc, id, plan, resolutions, outside, viaPi };
  }

  /**
   * Through the pi that ran the session when the restore was decided: one request, in which pi writes
   * the files and (`conversation`) moves its leaf as one action. 'none': no pi (any more); the files
   * are the caller's to write.
   */
  async throughPi(
    session: Session,
    file: string,
    d: DecidedRestore,
    conversation: boolean,
  ): Promise<'done' | 'cancelled' | 'none'> {
    if (!d.viaPi || !this.deps.gateway) return 'none';
    const t0 = performance.now();
    const r = await this.deps.gateway.run(
      file,
      'restoreCode',
      {
        targetId: d.id,
        fingerprint: d.plan.fingerprint,
        ...(conversation ? { conversation: true } : {}),
        resolutions: Object.fromEntries(d.resolutions),
        ...(d.outside.length ? { allowOutside: d.outside } : {}),
      },
      conversation ? session : undefined,
    );
    if (r.via === 'cancelled') return 'cancelled';
    if (r.via === 'none') return 'none';
    const inPi = r.data.ms
      ? ` (in pi: ${Object.entries(r.data.ms)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} ms)`
      : '';
    this.deps.log(
      `restore: ${fileCount(r.data.written.length)} written through pi ${r.pid} in ${(performance.now() - t0).toFixed(0)} ms${inPi}`,
    );
    // pi moved its leaf with the files: the session is read again before anyone goes on from it. The
    // code alone leaves the conversation as it was, and the notification does not wait for the read.
    const read = session.refresh();
    if (conversation) await read;
    else void read.catch((e: unknown) => this.deps.log(`restore: the session could not be read again (${String(e)})`));
    this.done(
      session,
      file,
      r.data.written.length,
      r.data.skipped,
      `through pi ${r.pid}`,
      r.data.merged ?? [],
      r.data.warnings ?? [],
    );
    return 'done';
  }

  /**
   * Writes the decided files with the journal. `leaf`: the conversation moves too; the journal then says
   * its move is due, and the caller moves it and calls leafMoved, or putBack when it could not.
   */
  async write(d: DecidedRestore, leaf?: { targetId: string | null; fromId: string | null }): Promise<WrittenRestore> {
    const res = await writeCode(d.sc, d.plan, {
      resolutions: d.resolutions,
      confirmed: new Set(d.outside),
      ...(leaf ? { leaf } : {}),
    });
    return { d, res };
  }

  /** The conversation moved after the files: recorded where it landed (an undo moves it back from there), then the restore is told. */
  async leafMoved(session: Session, file: string, w: WrittenRestore, landed: string | null): Promise<void> {
    const { warnings } = await recordLeafMoved(w.d.sc, w.res.journal, landed);
    this.done(session, file, w.res.written.length, w.res.skipped, '', w.res.merged, [...w.res.warnings, ...warnings]);
  }

  /** The conversation could not move after the files: they go back as they were (the code and the conversation move together). */
  async putBack(w: WrittenRestore): Promise<void> {
    const r = await putCodeBack(w.d.sc, w.res.journal);
    for (const x of r.skipped) this.deps.log(`restore put back: ${x.path} left as it is (${x.why})`);
    for (const x of r.warnings) this.deps.log(`restore put back: ${x}`);
  }

  /**
   * The preview's documents: each file now → at the node, conflicts first, at most `first` of them
   * (VS Code resolves every pair before it draws the preview: seconds at 1,000).
   */
  private async previewDocs(sc: SessionCode, plan: RestorePlan, first: number): Promise<PreviewDocs> {
    const writable = plan.items.filter((i) => i.action !== 'unrestorable');
    const shown = [
      ...writable.filter((i) => i.action === 'conflict'),
      ...writable.filter((i) => i.action !== 'conflict'),
    ].slice(0, first);
    // The node's bytes of the shown files in one read of the store (a git process per file took seconds at 1,000).
    const wanted = shown.flatMap((i) => {
      const t = plan.sides.get(i.key)!.target;
      return t.kind === 'file' && !t.bytes ? [t.sha] : [];
    });
    const blobs = wanted.length
      ? ((await sc.checkpoints.store?.readBlobs([...new Set(wanted)])) ?? new Map<string, Buffer>())
      : new Map<string, Buffer>();
    const sizes: number[] = [];
    const resources = shown.map((item): [vscode.Uri, vscode.Uri, vscode.Uri] => {
      const sides = plan.sides.get(item.key)!;
      const target = sides.target.kind === 'file' ? (sides.target.bytes ?? blobs.get(sides.target.sha)) : undefined;
      sizes.push((target?.length ?? 0) + (sides.now.kind === 'file' ? (sides.now.bytes?.length ?? 0) : 0));
      const left =
        sides.now.kind === 'file' ? vscode.Uri.file(item.path) : this.deps.docs.put(undefined, item.path, 'absent now');
      const right = this.deps.docs.put(
        target,
        item.path,
        item.action === 'delete' ? 'absent at the node' : 'at the node',
      );
      return [vscode.Uri.file(item.path), left, right];
    });
    return { resources, sizes, hidden: writable.length - shown.length };
  }

  /**
   * The first preview's documents, opened in the background while the user reads the choice: in a
   * new window VS Code then loads their models, activates their languages and starts its diff
   * worker before the click instead of after it (the preview's first diff came ~1 s sooner).
   */
  warm(session: Session, plan: RestorePlan): Promise<PreviewDocs> {
    const docs = this.previewDocs(this.code(session), plan, PREVIEW_FIRST);
    void docs
      .then(async ({ resources, sizes }) => {
        const t0 = performance.now();
        let budget = WARM_BYTES;
        const uris = resources.filter((_, i) => (budget -= sizes[i]) >= 0).flatMap(([, now, node]) => [now, node]);
        await Promise.all(uris.map((u) => vscode.workspace.openTextDocument(u).then(undefined, () => undefined)));
        // Any request to VS Code's editor worker starts it (links are computed there); the diffs run in it.
        if (uris.length)
          await vscode.commands.executeCommand('vscode.executeLinkProvider', uris[0]).then(undefined, () => undefined);
        this.deps.log(`restore preview: ${uris.length} documents ready in ${(performance.now() - t0).toFixed(0)} ms`);
      })
      .catch(() => undefined);
    return docs;
  }

  /** VS Code's multi-file diff editor with `first` files of the plan. Resolves with its tab's label and how many files it leaves out. */
  private async preview(
    sc: SessionCode,
    plan: RestorePlan,
    title: string,
    first: number,
    warmed?: Promise<PreviewDocs>,
  ): Promise<{ label: string; hidden: number }> {
    const t0 = performance.now();
    const { resources, hidden } = (await warmed?.catch(() => undefined)) ?? (await this.previewDocs(sc, plan, first));
    // (VS Code adds how many files the editor shows, "(20 files)": the label does not say it again)
    const label = `${title}: ${planWords({ ...planTally(plan), kept: 0 })}`;
    const t1 = performance.now();
    await vscode.commands.executeCommand('vscode.changes', label, resources);
    this.deps.log(
      `restore preview: ${resources.length} of ${resources.length + hidden} files, their contents ${(t1 - t0).toFixed(0)} ms, the diff editor opened ${(performance.now() - t1).toFixed(0)} ms later`,
    );
    return { label, hidden };
  }

  private done(
    session: Session,
    file: string,
    written: number,
    skipped: { path: string; why: string }[],
    how: string,
    merged: { path: string; conflicts: number }[],
    warnings: string[],
  ): void {
    const left = skipped.length
      ? ` ${skipped.length} left as they are (changed meanwhile): ${skipped.map((s) => basename(s.path)).join(', ')}.`
      : '';
    for (const w of warnings) void vscode.window.showWarningMessage(`pi-tree: ${w}`);
    this.deps.undoStatus?.show(session, file, session.name ?? basename(file));
    if (merged.length) {
      const names = merged
        .map((m) => `${basename(m.path)} (${m.conflicts} conflict${m.conflicts === 1 ? '' : 's'})`)
        .join(', ');
      void vscode.window
        .showWarningMessage(`Merged with conflict markers left to settle: ${names}.`, 'Open')
        .then((a) => {
          if (a === 'Open')
            for (const m of merged) void vscode.window.showTextDocument(vscode.Uri.file(m.path), { preview: false });
        });
    }
    void vscode.window
      .showInformationMessage(`Restored ${fileCount(written)}${how ? ` ${how}` : ''}.${left}`, 'Undo')
      .then((a) => {
        if (a === 'Undo')
          void this.undo(session, file).catch(
            (e: unknown) => void vscode.window.showErrorMessage((e as Error).message),
          );
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
        return this.undone(
          session,
          file,
          r.data,
          redo,
          async () => void (await gw.run(file, 'codeUndo', { ...(redo ? { redo: true } : {}), force: true })),
        );
      }
      if (r.via === 'cancelled') return;
    }
    const sc = this.code(session);
    await this.finishInterrupted(sc);
    // The conversation goes back with the files when the restore moved it (and it has not moved on since).
    const flip = async (force: boolean) => {
      const r = await (redo ? redoCode(sc, { force }) : undoCode(sc, { force }));
      const moved = r.leaf ? await moveIfStill(session, r.leaf) : undefined;
      return { ...r, ...(moved === true ? { leafMoved: true } : {}), ...(moved === false ? { leafStayed: true } : {}) };
    };
    return this.undone(session, file, await flip(false), redo, async () => void (await flip(true)));
  }

  private async undone(
    session: Session,
    file: string,
    r: { written: string[]; conflicts: string[]; leafMoved?: boolean; leafStayed?: boolean; warnings?: string[] },
    redo: boolean,
    force: () => Promise<void>,
  ): Promise<void> {
    for (const w of r.warnings ?? []) void vscode.window.showWarningMessage(`pi-tree: ${w}`);
    if (!r.conflicts.length) {
      // (a redo is a restore again: undoable; an undo leaves nothing to undo)
      if (redo) this.deps.undoStatus?.show(session, file, session.name ?? basename(file));
      else this.deps.undoStatus?.hide();
      const n = r.written.length;
      const conv = r.leafMoved
        ? `, and moved the conversation ${redo ? 'there again' : 'back'}`
        : r.leafStayed
          ? '; the conversation moved on since the restore and stays where it is'
          : '';
      void vscode.window.showInformationMessage(`${redo ? 'Restored again' : 'Put back'} ${fileCount(n)}${conv}.`);
      return;
    }
    const conflicts = r.conflicts;
    const FORCE = redo ? 'Restore Them Anyway' : 'Put Them Back Anyway';
    const pick = await vscode.window.showWarningMessage(
      `${flipConflictWords(conflicts.length, redo ? 'redo' : 'undo')}.`,
      { modal: true, detail: conflicts.join('\n') },
      FORCE,
    );
    if (pick !== FORCE) return;
    await force();
    if (redo) this.deps.undoStatus?.show(session, file, session.name ?? basename(file));
    else this.deps.undoStatus?.hide();
  }

  /** The code at `id` against the files now (or the code at `other`), in the multi-file diff editor. */
  async showDiff(session: Session, id: string, other?: { session: Session; id: string }): Promise<CodeChange[]> {
    await this.settled();
    const sc = this.code(session);
    const changes = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'pi Tree: comparing code' },
      () =>
        other
          ? diffCode(sc, id, other.id, other.session === session ? undefined : this.code(other.session))
          : diffCode(sc, id, 'now'),
    );
    if (!changes.length) {
      void vscode.window.showInformationMessage(
        other
          ? 'The code is the same at both nodes (as far as it is known).'
          : 'The files now are as they were at this node (as far as it is known).',
      );
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
      `Code at ${await this.deps.describe(session, id)} → ${other ? await this.deps.describe(other.session, other.id) : 'now'}${unknown ? `, ${unknown} not known` : ''}`,
      resources,
    );
    return changes;
  }
}

/** Moves the leaf to `to` if it is still at `expect`; whether it moved (a failed move is a leaf that stays). */
async function moveIfStill(session: Session, leaf: { to: string | null; expect: string | null }): Promise<boolean> {
  try {
    await session.refresh();
    if (session.leafId !== leaf.expect) return false;
    await session.moveTo(leaf.to);
    return true;
  } catch {
    return false;
  }
}

/** Files outside the working folder (or a folder no one vouched for) are confirmed by name, all at once. */
async function confirmOutside(paths: readonly string[], sc: SessionCode): Promise<boolean> {
  const WRITE = 'Write Them';
  const why = sc.cwdVouched
    ? `${paths.length} file${paths.length === 1 ? ' is' : 's are'} outside the session\u2019s working folder (${sc.cwd}).`
    : `The session says it works in ${sc.cwd}, which is neither a folder of this workspace nor where pi keeps it.`;
  const pick = await vscode.window.showWarningMessage(
    `${why} Restore writes ${paths.length === 1 ? 'it' : 'these'}:`,
    { modal: true, detail: paths.join('\n') },
    WRITE,
  );
  return pick === WRITE;
}

/** Closes the preview's tab (found by its label, wherever it is). */
async function closePreview(label: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label.startsWith(label));
  if (tabs.length) await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
}
