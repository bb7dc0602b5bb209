// "Move here with summary": choose no summary, the model's summary or one with a custom focus; preview,
// edit, then commit. Cancelling at any point writes nothing (a preview still on its way is dropped).
import type { SummaryPreview } from '../../src/protocol';
import { button, h, textarea } from './dom';
import { focusFirst, modal, type DialogServices } from './modal';
import type { Overlay } from './overlays';

/**
 * "Move here with summary": choose none / default / custom focus; preview the model's summary, edit
 * it, then commit. Cancelling at any point writes nothing (a pending preview is cancelled on arrival).
 */
export function openSummaryDialog(svc: DialogServices, target: { id: string | null; title: string }, summariesAvailable: boolean): Overlay {
  const { el, body, actions } = modal('summary', `Move to “${target.title}” with a summary`);
  let closed = false;
  let previewId: string | undefined;
  const overlay: Overlay = {
    el,
    close: () => {
      if (closed) return;
      closed = true;
      if (previewId) void svc.request({ kind: 'cancelPreview', previewId }).catch(() => undefined);
      svc.pop(overlay);
    },
  };
  const finish = () => {
    closed = true;
    svc.pop(overlay);
  };
  const cancel = button('Cancel', 'summary-cancel', { secondary: true });
  cancel.addEventListener('click', () => overlay.close());

  const choose = () => {
    body.replaceChildren(
      h(
        'p',
        undefined,
        summariesAvailable
          ? 'Summarize the branch you are leaving, so the model keeps what it learned there?'
          : 'No summary model is set up. You can move without a summary or write the summary yourself.',
      ),
    );
    actions.replaceChildren();
    const none = button('No summary', 'summary-none', { secondary: true });
    none.addEventListener('click', () => void plainMove());
    actions.append(none);
    if (summariesAvailable) {
      const def = button('Summarize', 'summary-default');
      def.addEventListener('click', () => void preview(undefined));
      const custom = button('Summarize with focus…', 'summary-custom', { secondary: true });
      custom.addEventListener('click', () => customFocus());
      actions.append(def, custom);
    } else {
      const write = button('Write a summary…', 'summary-write');
      write.addEventListener('click', () => edit({ previewId: '', summary: '', details: { readFiles: [], modifiedFiles: [] }, entryCount: -1 }));
      // Where the summary model is chosen (pi, a VS Code chat model or an endpoint): the settings.
      const setup = button('Set up a model…', 'summary-setup', { secondary: true });
      setup.addEventListener('click', async () => {
        overlay.close();
        try {
          await svc.request({ kind: 'setupSummaryModel' });
          svc.announce('Opened the summary model settings');
        } catch (e) {
          svc.error((e as Error).message);
        }
      });
      actions.append(write, setup);
    }
    actions.append(cancel);
    focusFirst(el);
  };

  const plainMove = async () => {
    finish();
    try {
      const r = await svc.request({ kind: 'moveTo', id: target.id });
      svc.afterMove(r, target.id);
    } catch (e) {
      svc.error((e as Error).message);
    }
  };

  const customFocus = () => {
    const focus = textarea('focus', '', 4, 'What should the summary focus on?');
    body.replaceChildren(h('p', undefined, 'Custom instructions for the summary (Enter asks the model, Shift+Enter starts a new line):'), focus);
    const gen = button('Summarize', 'summary-generate');
    const submit = () => void preview(focus.value.trim() || undefined);
    gen.addEventListener('click', submit);
    // Enter submits, as in pi's editor; Shift+Enter is a new line; an IME composition keeps its Enter.
    focus.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      submit();
    });
    actions.replaceChildren(gen, cancel);
    focusFirst(el);
  };

  const preview = async (focus: string | undefined) => {
    body.replaceChildren(h('p', 'busy', 'Asking the model for a summary of the branch you are leaving…'), document.createElement('vscode-progress-bar'));
    actions.replaceChildren(cancel);
    svc.announce('Summarizing the branch…');
    try {
      const p = await svc.request({ kind: 'summaryPreview', id: target.id, ...(focus ? { focus } : {}) });
      if (closed) {
        // Cancelled while the model was working: drop the preview, write nothing.
        if (p.previewId) void svc.request({ kind: 'cancelPreview', previewId: p.previewId }).catch(() => undefined);
        return;
      }
      previewId = p.previewId || undefined;
      edit(p);
    } catch (e) {
      if (closed) return;
      svc.error((e as Error).message);
      choose();
    }
  };

  const edit = (p: SummaryPreview) => {
    const userWritten = p.entryCount < 0;
    body.replaceChildren();
    if (p.entryCount === 0) {
      body.append(h('p', undefined, 'There is nothing to summarize on the branch you are leaving.'));
      const move = button('Move without summary', 'summary-none');
      move.addEventListener('click', () => {
        if (previewId) void svc.request({ kind: 'cancelPreview', previewId }).catch(() => undefined);
        previewId = undefined;
        void plainMove();
      });
      actions.replaceChildren(move, cancel);
      focusFirst(el);
      return;
    }
    if (!userWritten) body.append(h('p', 'muted', `Summary of ${p.entryCount} entries${p.model ? ` by ${p.model}` : ''}. Edit it before moving if you like.`));
    const text = textarea('summary', p.summary, 12, 'Branch summary');
    body.append(text);
    const files = [...p.details.readFiles.map((f) => `read: ${f}`), ...p.details.modifiedFiles.map((f) => `modified: ${f}`)];
    if (files.length) {
      const ul = h('ul', 'files');
      for (const f of files) ul.append(h('li', undefined, f));
      body.append(ul);
    }
    const commit = button('Move with summary', 'summary-commit');
    commit.addEventListener('click', async () => {
      const summary = text.value;
      if (!summary.trim()) {
        svc.error('The summary is empty.');
        return;
      }
      const pid = previewId;
      previewId = undefined;
      finish();
      try {
        const r = await svc.request({ kind: 'moveWithSummary', id: target.id, summary, ...(pid ? { previewId: pid } : {}) });
        svc.afterMove(r, target.id);
      } catch (e) {
        svc.error((e as Error).message);
      }
    });
    actions.replaceChildren(commit, cancel);
    focusFirst(el);
  };

  choose();
  svc.push(overlay);
  return overlay;
}
