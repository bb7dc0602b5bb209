// The three things the click benchmark times in the real VS Code, each from the moment the bench is
// about to dispatch the user's input (Date.now() in the workbench page, right before Playwright's
// mouse click or key press) to the end of the frame that painted the result in the webview (Date.now()
// there, after a requestAnimationFrame and a task: the same clock, the same way as bench/webview.ts).
import { writeFileSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import type { VSCode } from '../../test/e2e/harness';
import { cpuByRole, cpuSince } from './cpu';
import { startProfile, startTrace, summarize, topSelf } from './trace';

type Win = Record<string, any>;
const LONG = 15 * 60_000;

/** Waits until the page's main thread has had an idle period (the workbench settled after a step). */
export async function settled(frame: Pick<Frame, 'evaluate'>): Promise<void> {
  for (let i = 0; i < 2; i++)
    await frame.evaluate(() => new Promise<void>((r) => requestIdleCallback(() => r(), { timeout: 5000 })));
}

/** Closes every editor (the tree panel) and waits until its webview is gone. */
export async function closeTree(vs: VSCode): Promise<void> {
  await vs.runCommand('View: Close All Editors');
  await vs.webviewElement().first().waitFor({ state: 'detached', timeout: LONG });
}

/** The inner frame of our webview (the one the probe records in). */
export async function webviewFrame(vs: VSCode): Promise<Frame> {
  const outer = await (await vs.webviewElement().elementHandle({ timeout: LONG }))!.contentFrame();
  const inner = await (await outer!.waitForSelector('iframe#active-frame', { timeout: LONG }))!.contentFrame();
  if (!inner) throw new Error('the webview has no inner frame');
  return inner;
}

export interface ClickSample {
  /** When the click was dispatched (Date.now() in the workbench page). */
  t0: number;
  /** Input dispatched → first graph node painted. */
  ms: number;
  /** Input dispatched → the workbench page's mousedown (Playwright's share). */
  dispatchMs: number;
  /** Each from the input dispatch, ms. */
  at: {
    firstMessage: number;
    /** The first screen (a big session's preview) arrived; NaN without one. */
    preview: number;
    lastPart: number;
    lastPartHandled: number;
    firstRender: number;
    painted: number;
    /** The whole tree (the render after the snapshot's last part) painted. */
    wholePainted: number;
  };
  parts: number;
  nodes: number;
  /** The host's own account (output channel), ms from the panel's creation. */
  host?: Record<string, number>;
  /** CPU ms by process role from the click until the paint was seen. */
  cpu: Record<string, number>;
  /** The same until the whole tree is painted (polled: up to ~100 ms late). */
  cpuWhole: Record<string, number>;
  /** The webview's own start, each from the input dispatch, ms (NaN: not seen). */
  start: WebviewStart;
}

export interface WebviewStart {
  /** VS Code's webview host frame (pre/index.html) made. */
  hostFrame: number;
  /** The content frame made (the host frame's service worker is up). */
  contentFrame: number;
  /** The HTML written (VS Code's API script ran). */
  apiScript: number;
  /** dist/webview.css and dist/webview.js fetched (request start → response end). */
  cssFrom: number;
  cssTo: number;
  jsFrom: number;
  jsTo: number;
  /** The bundle's modules evaluated (it called acquireVsCodeApi). */
  acquired: number;
  /** The app built and `ready` posted. */
  ready: number;
  /** The written document's load event (VS Code shows the frame and hands it messages then, or 200 ms after the write). */
  loaded: number;
  /** What the document fetched before it painted its first node (file name: start → end). */
  fetched: string[];
}

function webviewStart(
  at: Record<string, number | undefined>,
  files: { file: string; start: number; end: number }[],
  t0: number,
): WebviewStart {
  const all = files.map((f) => `${f.file} ${Math.round(f.start - t0)}→${Math.round(f.end - t0)}`);
  const rel = (t: number | undefined) => (t === undefined ? NaN : t - t0);
  const css = files.find((f) => f.file === 'webview.css');
  const js = files.find((f) => f.file === 'webview.js');
  return {
    hostFrame: rel(at.hostFrame),
    contentFrame: rel(at.contentFrame),
    apiScript: rel(at.apiScript),
    cssFrom: rel(css?.start),
    cssTo: rel(css?.end),
    jsFrom: rel(js?.start),
    jsTo: rel(js?.end),
    acquired: rel(at.acquired),
    ready: rel(at.ready),
    loaded: rel(at.loaded),
    fetched: all,
  };
}

/** Clicks the sidebar row showing `name` and times it until the first graph node is painted. */
export async function clickToFirstNode(
  vs: VSCode,
  name: string,
  traceFile?: string,
): Promise<{ sample: ClickSample; frame: Frame }> {
  await vs.openContainer();
  const row = vs.treeRows().filter({ hasText: name }).first();
  await row.waitFor({ timeout: LONG });
  await settled(vs.page);
  await vs.page.evaluate(() =>
    window.addEventListener('mousedown', () => ((window as Win).__benchMouseDown = Date.now()), {
      capture: true,
      once: true,
    }),
  );
  const box = await row.boundingBox();
  if (!box) throw new Error(`the sidebar row "${name}" has no box`);
  const trace = traceFile && !process.env.BENCH_CLICK_PROFILE ? await startTrace(vs.page) : undefined;
  const profile = traceFile && process.env.BENCH_CLICK_PROFILE ? await startProfile(vs.page) : undefined;
  const cpu0 = cpuByRole(vs.server.process.pid!, vs.runDir);
  const t0 = await vs.page.evaluate(() => (console.timeStamp('bench:click'), Date.now()));
  await vs.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await vs.webview().locator('svg.scene g.node').first().waitFor({ timeout: LONG });
  const frame = await webviewFrame(vs);
  await frame.waitForFunction(
    () => (window as Win).__clickProbe?.renders.some((r: Win) => r.nodes > 0 && r.painted),
    undefined,
    { timeout: LONG, polling: 100 },
  );
  const cpu = cpuSince(cpu0, cpuByRole(vs.server.process.pid!, vs.runDir));
  // A big session's first screen comes before its whole tree: wait for that too (painted after the last part).
  await frame.waitForFunction(
    () => {
      const p = (window as Win).__clickProbe;
      const parts = p?.messages.filter((m: Win) => m.type === 'snapshot' || m.type === 'snapshotPart') ?? [];
      const last = parts[parts.length - 1];
      return (
        !!last &&
        !document.querySelector('.loading:not([hidden])') &&
        p.renders.some((r: Win) => r.at >= last.handled - 1 && r.painted)
      );
    },
    undefined,
    { timeout: LONG, polling: 100 },
  );
  const cpuWhole = cpuSince(cpu0, cpuByRole(vs.server.process.pid!, vs.runDir));
  if (profile) {
    const p = await profile.stop();
    writeFileSync(traceFile!.replace(/\.json$/, '.cpuprofile'), JSON.stringify(p));
    writeFileSync(traceFile!.replace(/\.json$/, '.profile-summary.json'), JSON.stringify(topSelf(p, 40), null, 1));
  }
  if (trace) {
    const events = await trace.stop();
    writeFileSync(traceFile!, JSON.stringify({ traceEvents: events }));
    const click = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'bench:click');
    if (click) {
      const painted = (await frame.evaluate(
        () => (window as Win).__clickProbe.renders.find((r: Win) => r.nodes > 0).painted,
      )) as number;
      writeFileSync(
        traceFile!.replace(/\.json$/, '.summary.json'),
        JSON.stringify(summarize(events, click.ts, click.ts + (painted - t0) * 1000), null, 1),
      );
    }
  }
  const probe = await frame.evaluate(() => {
    const p = (window as Win).__clickProbe;
    // The files the content frame fetched (through VS Code's service worker).
    const files = performance.getEntriesByType('resource').map((r) => ({
      file: new URL(r.name).pathname.split('/').pop()!,
      start: performance.timeOrigin + r.startTime,
      end: performance.timeOrigin + (r as PerformanceResourceTiming).responseEnd,
    }));
    return {
      messages: p.messages as Win[],
      renders: p.renders as Win[],
      start: p.start as Record<string, number | undefined>,
      files,
    };
  });
  const mouseDown = (await vs.page.evaluate(() => (window as Win).__benchMouseDown)) as number;
  const first = probe.renders.find((r) => r.nodes > 0)!;
  const parts = probe.messages.filter((m) => m.type === 'snapshot' || m.type === 'snapshotPart');
  const last = parts[parts.length - 1];
  const preview = probe.messages.find((m) => m.type === 'firstScreen');
  const whole = probe.renders.find((r) => r.at >= last.handled - 1 && r.painted);
  const sample: ClickSample = {
    t0,
    ms: first.painted - t0,
    dispatchMs: mouseDown - t0,
    at: {
      firstMessage: (preview ?? parts[0]).at - t0,
      preview: preview ? preview.at - t0 : NaN,
      lastPart: last.at - t0,
      lastPartHandled: last.handled - t0,
      firstRender: first.at - t0,
      painted: first.painted - t0,
      wholePainted: whole!.painted - t0,
    },
    parts: parts.length,
    nodes: parts.reduce((n, m) => n + m.nodes, 0),
    cpu,
    cpuWhole,
    start: webviewStart(probe.start, probe.files, t0),
  };
  return { sample, frame };
}

/**
 * Arms a watch in the webview, before the input is dispatched: after each DOM change it checks whether
 * the result is there (`step`: a new item selected in the outline and the same one in the graph;
 * `leafAt`: the graph's leaf mark on that entry), then waits for the frame that shows it to be painted.
 * (The webview's CSP forbids eval, so the conditions are written out here.)
 */
async function armWatch(frame: Frame, want: { step: true } | { leafAt: string }): Promise<void> {
  await frame.evaluate((want) => {
    const w = window as Win;
    const selected = () => [
      document.querySelector('[role="tree"] [aria-selected="true"]')?.getAttribute('data-key') ?? null,
      document.querySelector('.graph svg.scene g.node.selected')?.getAttribute('data-key') ?? null,
    ];
    const leaf = () => document.querySelector('.graph svg.scene g.node.leaf')?.getAttribute('data-entry-id') ?? null;
    const before = selected();
    const done = () => {
      if ('leafAt' in want) return leaf() === want.leafAt;
      const [row, node] = selected();
      return row !== null && row !== before[0] && node === row;
    };
    const watch: Win = (w.__benchWatch = { messages: w.__clickProbe.messages.length });
    // When the input reaches the webview (before the app's own handlers see it).
    for (const type of ['keydown', 'pointerdown'])
      document.addEventListener(type, () => (watch.input ??= Date.now()), { capture: true, once: true });
    const obs = new MutationObserver(() => {
      if (!done()) return;
      obs.disconnect();
      watch.dom = Date.now();
      w.__clickProbe.afterPaint((t: number) => (watch.painted = t));
    });
    obs.observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['class', 'aria-selected'],
    });
  }, want);
}

interface Watched {
  input: number;
  dom: number;
  painted: number;
  /** Host messages that arrived meanwhile: [type, arrived, handled]. */
  messages: [string, number, number][];
}

async function watched(frame: Frame): Promise<Watched> {
  await frame.waitForFunction(() => (window as Win).__benchWatch?.painted, undefined, { timeout: 60_000, polling: 20 });
  return frame.evaluate(() => {
    const w = window as Win;
    const m = w.__clickProbe.messages.slice(w.__benchWatch.messages) as Win[];
    return { ...w.__benchWatch, messages: m.map((x) => [x.type, x.at, x.handled]) };
  });
}

export interface StepSample {
  ms: number;
  /** Input dispatched → the key reached the webview. */
  inputMs: number;
  domMs: number;
}

/**
 * `n` key presses in the tree (`keys` in turn: ↑ by default), each timed until the new selection is
 * painted in outline and graph.
 */
export async function keyboardSteps(vs: VSCode, frame: Frame, n: number, keys = ['ArrowUp']): Promise<StepSample[]> {
  await settled(frame);
  await frame.locator('[role="tree"]').focus();
  const out: StepSample[] = [];
  for (let i = 0; i < n; i++) {
    await settled(frame);
    await armWatch(frame, { step: true });
    const t0 = await vs.page.evaluate(() => Date.now());
    await vs.page.keyboard.press(keys[i % keys.length]);
    const w = await watched(frame);
    out.push({ ms: w.painted - t0, inputMs: w.input - t0, domMs: w.dom - t0 });
  }
  return out;
}

export interface MoveSample {
  ms: number;
  /** Input dispatched → the click reached the webview. */
  inputMs: number;
  /** → the host's leafMoved arrived, and was handled. */
  leafMovedMs: number;
  handledMs: number;
  domMs: number;
  target: string;
}

/**
 * `n` leaf moves: each selects an entry with its own node on the current path a node or two above
 * the leaf (a click on it, not timed), then clicks "Move here" in the details pane (timed until the leaf
 * mark is painted on the target in the graph).
 */
export async function moves(vs: VSCode, frame: Frame, n: number, failures: string[] = []): Promise<MoveSample[]> {
  const out: MoveSample[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push(await move(vs, frame));
    } catch (e) {
      // Recorded (and reported) rather than ending the run: one move the bench could not set up.
      failures.push(String(e instanceof Error ? e.message : e).split('\n')[0]);
    }
  }
  return out;
}

async function move(vs: VSCode, frame: Frame): Promise<MoveSample> {
  // Select the current leaf ('.'), then walk up the path with ↑ to an entry above it that is not a
  // user message (moving there asks for the text to edit): the selection is set up by the keyboard,
  // which does not depend on where the graph has drawn the node; only the "Move here" click is timed.
  await frame.locator('[role="tree"]').focus();
  await vs.page.keyboard.press('Period');
  await settled(frame);
  const selected = () =>
    frame.evaluate(() => {
      const el = document.querySelector('[role="tree"] [aria-selected="true"]');
      const id = el?.getAttribute('data-entry-id') ?? null;
      const g = id ? document.querySelector(`.graph svg.scene g.node[data-entry-id="${id}"]`) : null;
      return { id, leaf: !!g?.classList.contains('leaf'), user: !!g?.classList.contains('k-user') };
    });
  const start = (await selected()).id;
  let target: string | null = null;
  for (let k = 0; k < 8 && !target; k++) {
    await vs.page.keyboard.press('ArrowUp');
    await settled(frame);
    const now = await selected();
    if (now.id && now.id !== start && !now.leaf && !now.user && k >= 1) target = now.id;
  }
  if (!target) throw new Error('no entry above the leaf to move to');
  const button = frame.locator('.details [data-action="move"]');
  await button.waitFor();
  await settled(frame);
  const box = await button.boundingBox();
  if (!box) throw new Error('"Move here" has no box');
  await armWatch(frame, { leafAt: target });
  const t0 = await vs.page.evaluate(() => Date.now());
  await vs.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const w = await watched(frame);
  const moved = w.messages.find((m) => m[0] === 'leafMoved');
  return {
    ms: w.painted - t0,
    inputMs: w.input - t0,
    leafMovedMs: moved ? moved[1] - t0 : NaN,
    handledMs: moved ? moved[2] - t0 : NaN,
    domMs: w.dom - t0,
    target,
  };
}
