// "Move here with summary": choose no summary, the model's summary or one with a custom focus; preview,
// edit, then commit (draftDialog.ts). Cancelling at any point writes nothing (a preview still on its
// way is dropped). A failure is shown in the dialog with the ways on: again, by hand, without.
import type { SummaryPreview } from '../../src/protocol';
import { button, h } from './dom';
import { DraftDialog } from './draftDialog';
import type { DialogServices } from './modal';
import type { Overlay } from './overlays';

const HINT_PREVIEW =
  'Summarize again, write the summary yourself, move without one, or choose another summary model in the settings.';
const HINT_COMMIT = 'Nothing was written. Move again with the text below, or cancel.';

/** Where the summary moves the leaf: the node picked, and its title for the dialog's heading. */
interface SummaryTarget {
  id: string | null;
  title: string;
}

/**
 * "Move here with summary": choose none / default / custom focus; preview the model's summary, edit
 * it, then commit. Cancelling at any point writes nothing (a pending preview is cancelled on arrival).
 */
export function openSummaryDialog(svc: DialogServices, target: SummaryTarget, summariesAvailable: boolean): Overlay {
  const d = new DraftDialog(svc, 'summary', `Move to “${target.title}” with a summary`);
  const plainMove = () => moveWithout(d, target);

  /** The first step; after a failed preview, the reason on top and every way on below it. */
  const choose = (failure?: string) => {
    d.body.replaceChildren(
      h(
        'p',
        undefined,
        summariesAvailable
          ? 'Summarize the branch you are leaving, so the model keeps what it learned there?'
          : 'No summary model is set up. You can move without a summary or write the summary yourself.',
      ),
    );
    const none = button('No summary', 'summary-none', { secondary: true });
    none.addEventListener('click', () => void plainMove());
    const buttons = [none];
    if (summariesAvailable) {
      const def = button(failure ? 'Summarize Again' : 'Summarize', 'summary-default');
      def.addEventListener('click', () => void preview(undefined));
      const custom = button('Summarize with focus…', 'summary-custom', { secondary: true });
      custom.addEventListener('click', () =>
        d.focusStep(
          'Custom instructions for the summary (Enter asks the model, Shift+Enter starts a new line):',
          'Summarize',
          (focus) => void preview(focus),
        ),
      );
      buttons.push(def, custom);
    }
    if (!summariesAvailable || failure) {
      const write = button('Write a summary…', 'summary-write', { secondary: !!failure });
      write.addEventListener('click', () =>
        edit(d, target, { previewId: '', summary: '', details: { readFiles: [], modifiedFiles: [] }, entryCount: -1 }),
      );
      // Where the summary model is chosen (pi, a VS Code chat model or an endpoint): the settings.
      buttons.push(write, d.setupButton(summariesAvailable ? 'Summary Settings…' : 'Set up a model…'));
    }
    if (failure) d.alert(failure, HINT_PREVIEW);
    d.step(...buttons);
  };

  // Cancelled while the model was working: the preview is dropped, nothing written.
  const preview = (focus: string | undefined) =>
    d.preview(
      ['Asking the model for a summary of the branch you are leaving…', 'Summarizing the branch…'],
      () => svc.request({ kind: 'summaryPreview', id: target.id, ...(focus ? { focus } : {}) }),
      (p) => {
        d.previewId = p.previewId || undefined;
        edit(d, target, p);
      },
      (reason) => choose(reason),
    );

  choose();
  d.open();
  return d.overlay;
}

/** The move without a summary (closes the dialog first). */
async function moveWithout(d: DraftDialog, target: SummaryTarget): Promise<void> {
  d.finish();
  try {
    const r = await d.svc.request({ kind: 'moveTo', id: target.id });
    d.svc.afterMove(r, target.id);
  } catch (e) {
    d.svc.error((e as Error).message);
  }
}

/** The summary to edit (the model's, or the user's own: `entryCount` -1), then the move with it. */
function edit(d: DraftDialog, target: SummaryTarget, p: SummaryPreview, failure?: string): void {
  const { svc, body } = d;
  const userWritten = p.entryCount < 0;
  body.replaceChildren();
  if (p.entryCount === 0) {
    body.append(h('p', undefined, 'There is nothing to summarize on the branch you are leaving.'));
    const move = button('Move without summary', 'summary-none');
    move.addEventListener('click', () => {
      d.drop(d.previewId);
      d.previewId = undefined;
      void moveWithout(d, target);
    });
    d.step(move);
    return;
  }
  if (!userWritten)
    body.append(
      h(
        'p',
        'muted',
        `Summary of ${p.entryCount} entries${p.model ? ` by ${p.model}` : ''}. Edit it before moving if you like.`,
      ),
    );
  const text = d.editor('summary', p.summary, 'Branch summary', p.details);
  const commit = button('Move with summary', 'summary-commit');
  commit.addEventListener('click', async () => {
    const summary = text.value;
    if (!summary.trim()) return svc.error('The summary is empty.');
    const pid = d.previewId;
    commit.setAttribute('disabled', '');
    try {
      const r = await svc.request({
        kind: 'moveWithSummary',
        id: target.id,
        summary,
        ...(pid ? { previewId: pid } : {}),
      });
      d.previewId = undefined;
      d.finish();
      svc.afterMove(r, target.id);
    } catch (e) {
      if (d.closed) return svc.error((e as Error).message);
      // The preview is used up (or stale): what is left is the user's text, to move with again.
      d.drop(pid);
      d.previewId = undefined;
      edit(d, target, { ...p, previewId: '', summary, entryCount: -1 }, (e as Error).message);
    }
  });
  if (failure) d.alert(failure, HINT_COMMIT);
  d.step(commit);
}
