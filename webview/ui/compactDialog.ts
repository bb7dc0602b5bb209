// "Compact…" (pi's /compact): the model summarizes the older part of the conversation, the newest part
// stays as it is, and the context then starts from the summary. The same preview → edit → commit flow as
// the branch summary (draftDialog.ts): a preview writes nothing, the user may edit it, Compact writes
// it. A pi running the session compacts at once, as its /compact does: then the dialog shows what pi
// wrote, to keep or undo (a move back to where the leaf was).
import type { CompactPreview } from '../../src/protocol';
import { button, h } from './dom';
import { DraftDialog } from './draftDialog';
import { thousands } from './format';
import { focusFirst, type DialogServices } from './modal';
import type { Overlay } from './overlays';

const HINT_PREVIEW = 'Nothing was written. Compact again, or choose another summary model in the settings.';
const HINT_COMMIT = 'Nothing was written. Compact again, or cancel.';
/**
 * Why a compaction could not even start, and the hint for each: another model would not help (the
 * session is what it is), so these say what the user can change instead.
 */
const NOTHING_HINTS: [RegExp, string][] = [
  [
    /^Nothing to compact/,
    'Nothing was written. The newest part of the conversation, which compacting keeps as it is, is all of it: there is nothing older to summarize yet. How much is kept is a summary setting.',
  ],
  [
    /^Already compacted/,
    'Nothing was written. The context already starts from a compaction, and nothing came after it.',
  ],
];

export interface CompactTarget {
  /** A summary model (or pi) can write the compaction. */
  available: boolean;
  /** The pid of a pi (with the bridge) running the session: it compacts itself. */
  runningPi?: number;
}

export function openCompactDialog(svc: DialogServices, t: CompactTarget): Overlay {
  const d = new DraftDialog(svc, 'compact', 'Compact the context');
  const available = t.available || t.runningPi !== undefined;

  const choose = (failure?: string, hint = HINT_PREVIEW) => {
    d.body.replaceChildren(h('p', undefined, intro(t, available)));
    const buttons: HTMLElement[] = [];
    const nothing = failure ? NOTHING_HINTS.find(([re]) => re.test(failure))?.[1] : undefined;
    if (nothing) {
      // (compacting again would say the same: the way on is the setting, or more conversation)
      d.alert(failure!, nothing);
      return d.step(d.setupButton('Open Settings'));
    }
    if (available) {
      const def = button(failure ? 'Compact Again' : 'Compact', 'compact-default');
      def.addEventListener('click', () => void preview(undefined));
      const custom = button('Compact with focus…', 'compact-custom', { secondary: true });
      custom.addEventListener('click', () =>
        d.focusStep(
          'Instructions for the summary, as after pi’s /compact (Enter asks the model, Shift+Enter starts a new line):',
          'Compact',
          (focus) => void preview(focus),
        ),
      );
      buttons.push(def, custom);
    }
    buttons.push(d.setupButton(available ? 'Open Settings' : 'Set up a model…'));
    if (failure) d.alert(failure, hint);
    d.step(...buttons);
  };

  const preview = (focus: string | undefined) =>
    d.preview(
      ['Asking the model to summarize the older part of the conversation…', 'Compacting…'],
      () => svc.request({ kind: 'compactPreview', ...(focus ? { focus } : {}) }),
      (p) => {
        d.previewId = p.previewId;
        if (p.committed) written(d, p);
        else edit(d, p, (reason) => choose(reason, HINT_COMMIT));
      },
      (reason) => choose(reason),
      // Cancelled while the model worked: nothing is written (a running pi's compaction stays: undo it by a move back).
      (p) => p.committed && svc.announce(`pi compacted the session already; move the leaf back to undo it`),
    );

  choose();
  d.open();
  return d.overlay;
}

/** The first step's question: what compacting does here, or why it cannot. */
function intro(t: CompactTarget, available: boolean): string {
  if (!available)
    return 'No summary model is set up to write the compaction. Set one up (or let pi do it) in the summary settings.';
  if (t.runningPi !== undefined)
    return `pi ${t.runningPi} runs this session: it compacts it now, as its /compact does. You can keep or undo what it writes.`;
  return 'Summarize the older part of the conversation, so the context starts from the summary? The newest part stays as it is, as with pi’s /compact (how much: “Keep Recent Tokens” in the summary settings).';
}

/** A compaction not yet written: the user may edit it, then Compact writes it; `failed` starts over. */
function edit(d: DraftDialog, p: CompactPreview, failed: (reason: string) => void): void {
  const { svc } = d;
  const kept = p.keptTokens !== undefined ? `, about ${thousands(p.keptTokens)} stay as they are` : '';
  const what = p.summarizedEntries !== undefined ? `Summary of ${p.summarizedEntries} entries` : 'Summary';
  d.body.replaceChildren(
    h(
      'p',
      'muted',
      `${what}${p.model ? ` by ${p.model}` : ''}: about ${thousands(p.tokensBefore)} tokens before${kept}. Edit it before compacting if you like.`,
    ),
  );
  const text = d.editor('summary', p.summary, 'Compaction summary', p.details);
  const commit = button('Compact', 'compact-commit');
  commit.addEventListener('click', async () => {
    const summary = text.value;
    if (!summary.trim()) return svc.error('The summary is empty.');
    commit.setAttribute('disabled', '');
    try {
      const r = await svc.request({ kind: 'compactCommit', previewId: p.previewId, summary });
      if ('cancelled' in r) {
        d.overlay.close();
        return svc.announce('Cancelled: nothing was written');
      }
      d.previewId = undefined;
      d.finish();
      svc.announce('Compacted: the context now starts from the summary');
    } catch (e) {
      if (d.closed) return svc.error((e as Error).message);
      // The preview is used up (or stale): the way on is a new one.
      d.drop(d.previewId);
      d.previewId = undefined;
      failed((e as Error).message);
    }
  });
  d.step(commit);
}

/** A running pi wrote its compaction already: keep it, or undo it by moving the leaf back. */
function written(d: DraftDialog, p: CompactPreview): void {
  const { svc } = d;
  d.body.replaceChildren(
    h(
      'p',
      'muted',
      `${p.model ?? 'pi'} compacted the session (about ${thousands(p.tokensBefore)} tokens before). pi wrote it as it is; Undo moves the leaf back to where it was.`,
    ),
  );
  d.editor('summary', p.summary, 'Compaction summary', p.details, true);
  const keep = button('Keep', 'compact-keep');
  keep.addEventListener('click', () => {
    d.overlay.close();
    svc.announce('Compacted: the context now starts from the summary');
  });
  const undo = button('Undo', 'compact-undo', { secondary: true });
  undo.addEventListener('click', async () => {
    undo.setAttribute('disabled', '');
    try {
      const r = await svc.request({ kind: 'moveTo', id: p.previousLeafId ?? null });
      d.overlay.close();
      svc.afterMove(r, p.previousLeafId ?? null);
    } catch (e) {
      undo.removeAttribute('disabled');
      d.alert((e as Error).message, 'The compaction stays. Move the leaf back from the tree, or keep it.');
    }
  });
  d.actions.replaceChildren(keep, undo);
  focusFirst(d.el);
}
