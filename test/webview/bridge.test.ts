// The webview's end of the bridge when the document's boot script (webviewHtml.ts BOOT) ran first: it
// said `ready` and kept the host's early messages; the bridge says nothing more, takes those messages
// first and in order, then listens itself. Without a boot script it says `ready` itself.
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { test } from 'node:test';
import { Bridge, type Boot, type VsCodeApi } from '../../webview/app/bridge';
import { BOOT } from '../../src/host/panels/webviewHtml';

/** A window of its own (an EventTarget) with VS Code's API as the webview gets it. */
function page() {
  const posted: unknown[] = [];
  const api: VsCodeApi = { postMessage: (m) => void posted.push(m), getState: () => undefined, setState: () => undefined };
  const win = new EventTarget() as EventTarget & { piTreeBoot?: Boot };
  let taken = 0;
  const context = {
    window: win,
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
    acquireVsCodeApi: () => {
      if (taken++) throw new Error('An instance of the VS Code API has already been acquired');
      return api;
    },
  };
  const post = (data: unknown) => win.dispatchEvent(new MessageEvent('message', { data }));
  return { win, posted, post, context };
}

test('after the boot script: its queue first, in order, then live messages; `ready` said once', () => {
  const p = page();
  runInNewContext(BOOT, p.context);
  // (objects made in the script's own context: compared as JSON)
  assert.equal(JSON.stringify(p.posted), '[{"type":"ready"}]');
  // the host answers while the bundle is still being parsed
  p.post({ type: 'loading', loaded: 1 });
  p.post({ type: 'loading', loaded: 2 });
  const got: unknown[] = [];
  const boot = p.win.piTreeBoot!;
  const bridge = new Bridge(boot.api, (m) => got.push(m));
  bridge.start(p.win as unknown as Window, boot);
  p.post({ type: 'loading', loaded: 3 });
  assert.deepEqual(
    got.map((m) => (m as { loaded: number }).loaded),
    [1, 2, 3],
  );
  assert.equal(JSON.stringify(p.posted), '[{"type":"ready"}]', 'no second ready');
  assert.equal(boot.queue.length, 0, 'the boot script no longer keeps messages');
  assert.throws(() => p.context.acquireVsCodeApi(), /already/, 'the API was taken once, by the boot script');
});

test('without a boot script the bridge says `ready` itself', () => {
  const p = page();
  const got: unknown[] = [];
  new Bridge(p.context.acquireVsCodeApi(), (m) => got.push(m)).start(p.win as unknown as Window);
  assert.deepEqual(p.posted, [{ type: 'ready' }]);
  p.post({ type: 'loading', loaded: 1 });
  assert.equal(got.length, 1);
});
