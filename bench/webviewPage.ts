// Shared by the webview benchmarks: a fresh page with the test build of the webview, and medians.
import type { Browser, Page } from 'playwright-core';

// tsx (esbuild keepNames) wraps named inner functions in __name(); page.evaluate code needs it too.
const INIT = `window.__name = (f) => f; window.acquireVsCodeApi = () => ({ postMessage() {}, getState() { return undefined; }, setState() {} });`;

export function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export const r1 = (x: number) => Math.round(x * 10) / 10;

export async function freshPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(INIT);
  await page.goto(url);
  await page.waitForFunction(() => !!(window as unknown as { __piTree?: unknown }).__piTree);
  return page;
}
