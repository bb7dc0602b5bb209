// After a move to a user message (the leaf goes before it): its text, to copy or to continue with in pi.
import { button, h, textarea } from './dom';
import { focusFirst, modal, type DialogServices } from './modal';
import type { Overlay } from './overlays';

/** Offered after moving to a user message: its text, to copy or continue with in pi. */
export function openEditorTextDialog(svc: DialogServices, targetId: string | null, text: string): Overlay {
  const { el, body, actions } = modal('editor-text', 'Message text to edit and send again');
  body.append(h('p', 'muted', 'The leaf is now before this message. Edit its text and send it from pi.'), textarea('editor-text', text, 8, 'Message text', true));
  const overlay: Overlay = { el, close: () => svc.pop(overlay) };
  const copy = button('Copy', 'editor-copy', { icon: 'copy' });
  copy.addEventListener('click', async () => {
    try {
      if (targetId) await svc.request({ kind: 'copyText', id: targetId });
      svc.announce('Copied the message text');
    } catch (e) {
      svc.error((e as Error).message);
    }
  });
  const cont = button('Continue in pi', 'editor-continue', { icon: 'terminal' });
  cont.addEventListener('click', async () => {
    overlay.close();
    try {
      await svc.request({ kind: 'continueInPi', text });
    } catch (e) {
      svc.error((e as Error).message);
    }
  });
  const close = button('Close', 'editor-close', { secondary: true });
  close.addEventListener('click', () => overlay.close());
  actions.append(copy, cont, close);
  svc.push(overlay);
  focusFirst(el);
  return overlay;
}
