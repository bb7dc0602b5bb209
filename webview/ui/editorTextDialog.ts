// After a move to a user message (the leaf goes before it): its text, to copy or to continue with in pi.
import { button, h, textarea } from './dom';
import { focusFirst, modal, type DialogServices } from './modal';
import type { Overlay } from './overlays';

/**
 * Offered after moving to a user message (`move`), and in a new session forked from one (`fork`, as
 * pi's /fork puts the message in its editor): its text, to copy or continue with in pi.
 */
export function openEditorTextDialog(
  svc: DialogServices,
  targetId: string | null,
  text: string,
  after: 'move' | 'fork' = 'move',
): Overlay {
  const { el, body, actions } = modal('editor-text', 'Message text to edit and send again');
  const why =
    after === 'fork'
      ? 'This session was forked just before this message. Edit its text and send it from pi to go on from here.'
      : 'The leaf is now before this message. Edit its text and send it from pi.';
  body.append(h('p', 'muted', why), textarea('editor-text', text, 8, 'Message text', true));
  const overlay: Overlay = { el, close: () => svc.pop(overlay) };
  const copy = button('Copy', 'editor-copy', { icon: 'copy' });
  copy.addEventListener('click', async () => {
    try {
      // The host copies an entry's text; a fork's message is not an entry of this session: the page copies it.
      if (targetId) await svc.request({ kind: 'copyText', id: targetId });
      else await navigator.clipboard.writeText(text);
      svc.announce('Copied the message text');
    } catch (e) {
      svc.error(
        targetId
          ? (e as Error).message
          : 'The text could not be copied here: select it in the box and copy it with the keyboard.',
      );
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
