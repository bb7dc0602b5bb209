// The tree app in headless Chromium, as the browser suites drive it: open a snapshot, the small session,
// select by id, read the app's stats, close with the checks every test ends with (no page error, no CSP
// violation, every message the webview sent valid for the host).
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { NodeView } from '../../../src/protocol';
import { validateWebviewMessage } from '../../../src/protocolValidation';
import { smallSession } from '../fixtures';
import { idle, meta, type ScriptedHost, type WebviewBrowser } from './browser';

/** Opening helpers bound to a file's browser (useWebviewBrowser at its top level). */
export function appHelpers(web: WebviewBrowser) {
  async function open(
    nodes: NodeView[],
    leafId: string | null,
    over: Parameters<typeof meta>[0] = {},
  ): Promise<ScriptedHost> {
    const host = await web.open({ meta: meta(over), nodes, leafId });
    await host.waitFor((m) => m.type === 'selected', 60_000);
    await idle(host.page);
    return host;
  }

  async function small(over: Parameters<typeof meta>[0] = {}): Promise<ScriptedHost> {
    const s = smallSession();
    const host = await open(s.nodes, s.leafId, over);
    await host.page.locator('[role="tree"]').focus();
    return host;
  }
  return { open, small };
}

export const selected = (page: Page) =>
  page.evaluate(
    () => (window as unknown as { __piTree: { stats(): { selected?: string } } }).__piTree.stats().selected,
  );
export const stats = (page: Page) =>
  page.evaluate(() => (window as unknown as { __piTree: { stats(): Record<string, number> } }).__piTree.stats());

export async function selectId(host: ScriptedHost, id: string): Promise<void> {
  await host.post({ type: 'invoke', action: 'select', id });
  await idle(host.page);
  assert.equal(await selected(host.page), id);
  await host.page.locator('[role="tree"]').focus();
}

export async function close(host: ScriptedHost): Promise<void> {
  assert.deepEqual(host.pageErrors, []);
  assert.deepEqual(
    await host.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    [],
  );
  // Every message the webview sent passes the host's validator.
  for (const m of host.received) assert.equal(validateWebviewMessage(m).ok, true, JSON.stringify(m));
  await host.page.context().close();
}
