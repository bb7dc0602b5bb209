// Is the first webview of a browser profile slow because of VS Code or because of pi-tree? The click
// bench (bench/click.ts) finds a click on a session row → the first graph node at ~3 s in a fresh
// browser profile and ~0.5 s in a new window of a browser that has shown a webview before. This bench
// times VS Code's own first webview the same way and then pi-tree's open after it. Each sample is a
// fresh VS Code (code-server) and a fresh Chromium profile, as in the click bench; the kinds interleave:
//  markdown    Ctrl+K V (markdown.showPreviewToSide) on a Markdown file → its heading shown in the
//              preview (the first webview of the profile); then the same again in that window.
//  md-then-pi  the Markdown preview shown and closed first, then a click on the 20k-entry session's row
//              → the first graph node painted (bench/click/measure.ts's clickToFirstNode).
//  ext-then-pi the same, but first pi-tree's details page in the Extensions view (a webview: its README;
//              VS Code makes it with disableServiceWorker=true and without scripts, so the bench polls it).
//  pi          the control: the click on the row in a fresh profile, with no webview before it.
//  idle-then-pi the control after the workbench has been left alone for BENCH_FIRST_WEBVIEW_IDLE_MS
//              (15 s): does the first webview's cost fade with the browser's age?
// "Shown" is when the text is in the content frame's document, VS Code has made that frame visible,
// and a frame has been painted after that (Date.now() in the frame, as the click bench's probe does).
// Before each timed input the bench asks the browser whether VS Code's webview service worker is
// registered ("worker before"). In VS Code's host frame (pre/index.html) the probe also records
// navigator.serviceWorker.register() called and resolved, the worker taking control, VS Code's
// registration.update() call and its end, and reads the frame's own performance marks
// (content/started → content/workerReady: how long the webview's content waits for the worker).
// Prints one line per sample and a table (min / median / max, the load
// average at each sample) and writes .bench/click/first-webview.json.
// Run: node_modules/.bin/node --import tsx bench/click/firstWebview.ts (after `npm run build`; needs
// code-server: node scripts/ensure-tools.mjs, or PI_TREE_CODE_SERVER_DIR). BENCH_FIRST_WEBVIEW_RUNS
// (default 3), BENCH_FIRST_WEBVIEW_KINDS (default markdown,md-then-pi,ext-then-pi,pi,idle-then-pi).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { VSCode } from '../../test/e2e/harness';
import * as sel from '../../test/e2e/selectors';
import { clickToFirstNode, settled } from './measure';
import { PROBE } from './probe';
import { median } from './report';
import { benchSession, placeSession, type BenchSession } from './sessions';

const ROOT = join(__dirname, '..', '..');
const RUNS = Number(process.env.BENCH_FIRST_WEBVIEW_RUNS ?? 3);
const KINDS = (process.env.BENCH_FIRST_WEBVIEW_KINDS ?? 'markdown,md-then-pi,ext-then-pi,pi,idle-then-pi').split(',');
const ENTRIES = 20_000;
const MD_FILE = 'first-webview.md';
const MD_HEADING = 'First webview bench heading';
const README_HEADING = 'pi Session Tree (pi-tree)';
const LONG = 120_000;
const IDLE_MS = Number(process.env.BENCH_FIRST_WEBVIEW_IDLE_MS ?? 15_000);
const log = (s: string) => process.stderr.write(`${s}\n`);

/**
 * Init script for every frame: in the content frame of any webview (its parent is VS Code's host frame,
 * pre/index.html), records when the host frame and the content frame were made and when one of `texts`
 * was first shown: in the document, the frame made visible by VS Code (it does so at the document's load
 * event, or 200 ms after the write), then one frame painted. The script runs once, in the frame's
 * first (about:blank) document; its window and prototypes are kept through fake.html and VS Code's
 * document.write(), but an animation-frame loop belongs to a document, so the write starts another.
 */
function shownProbe(texts: string[]): string {
  return `(() => {
  const isHost = (w) => /\\/webview\\/browser\\/pre\\/index\\.html$/.test(w.location.pathname);
  try {
    if (isHost(window) && !window.__wvHostFrame) {
      window.__wvHostFrame = Date.now();
      // The host frame's service worker: register() called and resolved, the worker controlling the frame.
      const sw = (window.__wvWorker = {});
      const register = ServiceWorkerContainer.prototype.register;
      ServiceWorkerContainer.prototype.register = function (...args) {
        sw.register ??= Date.now();
        const p = register.apply(this, args);
        p.then(() => (sw.registered ??= Date.now()), () => {});
        return p;
      };
      const update = ServiceWorkerRegistration.prototype.update;
      ServiceWorkerRegistration.prototype.update = function (...args) {
        sw.update ??= Date.now();
        const p = update.apply(this, args);
        p.then(() => (sw.updated ??= Date.now()), () => {});
        return p;
      };
      navigator.serviceWorker?.addEventListener('controllerchange', () => (sw.controller ??= Date.now()));
    }
  } catch {}
  let host;
  try { if (window.parent !== window && isHost(parent)) host = parent; } catch {}
  if (!host) return;
  const texts = ${JSON.stringify(texts)};
  const rec = (window.__wvShown ??= { hostFrame: host.__wvHostFrame, contentFrame: Date.now() });
  const look = () => {
    if (rec.dom) return;
    const body = document.body;
    const text = body && texts.find((t) => body.innerText.includes(t));
    if (text && frameElement && frameElement.style.visibility === 'visible') {
      rec.text = text;
      rec.dom = Date.now();
      requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => (rec.painted = Date.now()); ch.port2.postMessage(0); });
      return;
    }
    requestAnimationFrame(look);
  };
  // VS Code writes the webview's HTML into the frame with document.open/write/close, called from the
  // host frame on this window's Document.prototype.
  const close = Document.prototype.close;
  Document.prototype.close = function () { const r = close.call(this); requestAnimationFrame(look); return r; };
  requestAnimationFrame(look);
})();`;
}

interface Shown {
  /** Input dispatched → `text` shown and painted in a webview. */
  ms: number;
  /** → VS Code's host frame made, → the content frame made (the service worker up), → the text in the visible frame. */
  hostFrame: number;
  contentFrame: number;
  dom: number;
  load: number;
  /** In the host frame: navigator.serviceWorker.register() called, resolved, the worker controlling the frame (→ controllerchange; NaN: none). */
  sw: { register: number; registered: number; controller: number; update: number; updated: number };
  /** The host frame's own performance marks (webview/index.html/…: signalingReady, content/started, content/workerReady, …), from the input. */
  marks: Record<string, number>;
  /** VS Code's webview service worker was registered in the profile before the input. */
  worker: boolean;
  /** VS Code made this webview with disableServiceWorker=true (its host frame's URL): it installs no worker. */
  workerDisabled: boolean;
  /** The webview runs no scripts (the probe could not run in it): `ms` is when the bench saw the text, polling every ~50 ms. */
  polled?: true;
}

const WEBVIEW_CONTENT = '/webview/browser/pre/fake.html';
const workerDisabled = (host: Frame) => new URL(host.url()).searchParams.get('disableServiceWorker') === 'true';

/**
 * Whether a script-less webview's content frame (one the probe cannot run in: VS Code sandboxes it
 * without allow-scripts, as the Extensions view's details page) made after `t0` shows `text` now,
 * seen from outside by Playwright.
 */
async function shownWithoutScripts(
  frame: Frame,
  text: string,
  t0: number,
): Promise<{ hostFrame: number; workerDisabled: boolean } | undefined> {
  const host = frame.parentFrame();
  if (!host || !new URL(frame.url()).pathname.endsWith(WEBVIEW_CONTENT)) return undefined;
  const hostFrame = (await host.evaluate(() => (window as any).__wvHostFrame as number | undefined)) ?? NaN;
  if (!(hostFrame >= t0)) return undefined;
  const element = await frame.frameElement();
  if (await element.evaluate((el) => /\ballow-scripts\b/.test((el as HTMLElement).getAttribute('sandbox') ?? '')))
    return undefined; // the probe's
  const visible = await element.evaluate((el) => (el as HTMLElement).style.visibility === 'visible');
  return visible && (await frame.getByText(text, { exact: true }).first().isVisible())
    ? { hostFrame, workerDisabled: workerDisabled(host) }
    : undefined;
}

/** Whether VS Code's webview service worker (pre/service-worker.js) is registered in the browser profile. */
function webviewWorker(vs: VSCode): Promise<boolean> {
  return vs.page.evaluate(async () =>
    (await navigator.serviceWorker.getRegistrations()).some((r) =>
      /\/webview\/browser\/pre\/service-worker\.js/.test((r.active ?? r.waiting ?? r.installing)?.scriptURL ?? ''),
    ),
  );
}

/** The host frame's service-worker times (its probe's) and its performance marks, from `t0`. */
async function hostTimes(host: Frame, t0: number): Promise<Pick<Shown, 'sw' | 'marks'>> {
  const { sw, marks } = await host.evaluate(() => ({
    sw: ((window as any).__wvWorker ?? {}) as Record<string, number | undefined>,
    marks: performance
      .getEntriesByType('mark')
      .filter((m) => m.name.startsWith('webview/index.html/'))
      .map(
        (m) => [m.name.slice('webview/index.html/'.length), performance.timeOrigin + m.startTime] as [string, number],
      ),
  }));
  const rel = (t: number | undefined) => (t === undefined ? NaN : Math.round(t - t0));
  return {
    sw: {
      register: rel(sw.register),
      registered: rel(sw.registered),
      controller: rel(sw.controller),
      update: rel(sw.update),
      updated: rel(sw.updated),
    },
    marks: Object.fromEntries(marks.map(([k, t]) => [k, rel(t)])),
  };
}

/** Dispatches the input (`act`) and waits until a webview made after it shows `text`. */
async function timeShown(vs: VSCode, text: string, act: () => Promise<void>): Promise<Shown> {
  const load = loadavg()[0];
  const worker = await webviewWorker(vs);
  const t0 = await vs.page.evaluate(() => Date.now());
  await act();
  const deadline = Date.now() + LONG;
  for (;;) {
    for (const frame of vs.page.frames()) {
      const r = (await frame.evaluate(() => (window as any).__wvShown).catch(() => undefined)) as
        Record<string, number | string> | undefined;
      if (r?.painted && r.text === text && (r.contentFrame as number) >= t0) {
        const rel = (k: string) => (r[k] as number) - t0;
        return {
          ms: rel('painted'),
          hostFrame: rel('hostFrame'),
          contentFrame: rel('contentFrame'),
          dom: rel('dom'),
          load,
          worker,
          workerDisabled: workerDisabled(frame.parentFrame()!),
          ...(await hostTimes(frame.parentFrame()!, t0)),
        };
      }
      if (!r?.painted) {
        const seen = await shownWithoutScripts(frame, text, t0).catch(() => undefined);
        if (seen)
          return {
            ms: Date.now() - t0,
            hostFrame: seen.hostFrame - t0,
            contentFrame: NaN,
            dom: NaN,
            load,
            worker,
            workerDisabled: seen.workerDisabled,
            polled: true,
            ...(await hostTimes(frame.parentFrame()!, t0)),
          };
      }
    }
    if (Date.now() > deadline) throw new Error(`no webview showed "${text}" within ${LONG} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Closes every editor and waits until no webview is left. */
async function closeAll(vs: VSCode): Promise<void> {
  await vs.runCommand('View: Close All Editors');
  await vs.webviewElement('').first().waitFor({ state: 'detached', timeout: LONG });
}

/** Opens the workspace's Markdown file (Quick Open) and times Ctrl+K V (markdown.showPreviewToSide). */
async function markdownPreview(vs: VSCode): Promise<Shown> {
  await vs.page.locator(sel.workbench.statusBar).click({ position: { x: 5, y: 5 } });
  await vs.page.keyboard.press('Control+P');
  await vs.page.locator(sel.quickInput.input).fill(MD_FILE);
  // Not "Preview first-webview.md", which Quick Open offers once a preview has been open.
  await vs.page.locator(sel.quickInput.row).filter({ hasText: MD_FILE, hasNotText: 'Preview' }).first().click();
  await vs.page.locator(sel.editor.textLines).filter({ hasText: MD_HEADING }).waitFor();
  // The Markdown extension activates on the file's language: let it, so that only the preview is timed.
  await new Promise((r) => setTimeout(r, 2000));
  await settled(vs.page);
  // Ctrl+K V: the preview in an editor group of its own, the text editor stays. (Ctrl+Shift+V shows the
  // preview in place of the text editor, and VS Code then reopens the file as a preview.)
  return timeShown(vs, MD_HEADING, async () => {
    await vs.page.keyboard.press('Control+K');
    await vs.page.keyboard.press('V');
  });
}

/** Opens pi-tree's details page from the Extensions view's installed list (timed: the click → its README shown). */
async function extensionDetails(vs: VSCode): Promise<Shown> {
  await vs.runCommand('Extensions: Show Installed Extensions');
  const row = vs.page.locator(sel.extensions.row).filter({ hasText: 'pi Session Tree' }).first();
  await row.waitFor({ timeout: LONG });
  await settled(vs.page);
  return timeShown(vs, README_HEADING, () => row.click());
}

interface Results {
  [kind: string]: Record<string, Shown[]>;
}

async function sample(kind: string, s: BenchSession, results: Results): Promise<void> {
  const launched = Date.now();
  const vs = await VSCode.launch(`first-webview-${kind}`, {
    sessions: ({ agentDir, workspace }) => {
      placeSession(s, agentDir, workspace);
      writeFileSync(join(workspace, MD_FILE), `# ${MD_HEADING}\n\nVS Code's own webview: the Markdown preview.\n`);
    },
  });
  const put = (what: string, x: Shown) => {
    ((results[kind] ??= {})[what] ??= []).push(x);
    const age = Date.now() - x.ms - (launched + vs.timings.browser);
    log(
      `${kind}: ${what} ${x.ms} ms (input ${(age / 1000).toFixed(1)} s after the browser's start)${x.polled ? ' (polled)' : ''} (host frame ${x.hostFrame}, content frame ${x.contentFrame}, text ${x.dom}; load ${x.load.toFixed(1)}; webview service worker before: ${x.worker ? 'yes' : 'no'}${x.workerDisabled ? '; this webview: disableServiceWorker' : ''}; its worker: register ${x.sw.register}, resolved ${x.sw.registered}, controlling ${x.sw.controller}, update() ${x.sw.update} → ${x.sw.updated}; host frame marks ${JSON.stringify(x.marks)})`,
    );
  };
  let failure: unknown;
  try {
    await vs.context.addInitScript(PROBE);
    await vs.context.addInitScript(shownProbe([MD_HEADING, README_HEADING]));
    if (kind === 'markdown' || kind === 'md-then-pi') {
      put('preview, first webview of the profile', await markdownPreview(vs));
      await closeAll(vs);
    }
    if (kind === 'markdown') put('preview again in the window', await markdownPreview(vs));
    if (kind === 'ext-then-pi') {
      put('details page, first webview of the profile', await extensionDetails(vs));
      await closeAll(vs);
    }
    if (kind === 'idle-then-pi') await new Promise((r) => setTimeout(r, IDLE_MS));
    if (kind !== 'markdown') {
      const load = loadavg()[0];
      const worker = await webviewWorker(vs);
      const { sample } = await clickToFirstNode(vs, s.name);
      put(kind === 'pi' || kind === 'idle-then-pi' ? 'pi-tree, first webview of the profile' : 'pi-tree after it', {
        ms: sample.ms,
        hostFrame: sample.start.hostFrame,
        contentFrame: sample.start.contentFrame,
        dom: sample.at.firstRender,
        load,
        worker,
        ...(await hostTimes((await (await vs.webviewElement().first().elementHandle())!.contentFrame())!, sample.t0)),
        workerDisabled:
          new URL((await vs.webviewElement().first().getAttribute('src'))!, vs.page.url()).searchParams.get(
            'disableServiceWorker',
          ) === 'true',
      });
    }
    vs.assertNoExtensionErrors();
  } catch (e) {
    failure = e;
    throw e;
  } finally {
    await vs.close(failure);
  }
}

function table(results: Results): string {
  const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
  const rows = [
    '| kind | what | min / median / max ms | content frame made (median ms) | host frame waits for the worker (median ms) | of it, registration.update() (median ms) | worker before | load at each sample |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [kind, whats] of Object.entries(results)) {
    for (const [what, xs] of Object.entries(whats)) {
      const ms = xs.map((x) => x.ms);
      rows.push(
        `| ${kind} | ${what} | ${fmt(Math.min(...ms))} / **${fmt(median(ms))}** / ${fmt(Math.max(...ms))} | ${fmt(median(xs.map((x) => x.contentFrame)))} | ${fmt(median(xs.map((x) => x.marks['content/workerReady'] - x.marks['content/started'])))} | ${fmt(median(xs.map((x) => x.sw.updated - x.sw.update)))} | ${xs.map((x) => (x.worker ? 'yes' : 'no')).join(', ')} | ${xs.map((x) => x.load.toFixed(1)).join(', ')} |`,
      );
    }
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const s = benchSession(join(ROOT, '.bench', 'click'), ENTRIES);
  const results: Results = {};
  for (let run = 0; run < RUNS; run++) for (const kind of KINDS) await sample(kind, s, results);
  mkdirSync(join(ROOT, '.bench', 'click'), { recursive: true });
  writeFileSync(
    join(ROOT, '.bench', 'click', 'first-webview.json'),
    JSON.stringify({ date: new Date().toISOString(), results }, null, 1),
  );
  process.stdout.write(`${table(results)}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
