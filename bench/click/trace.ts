// An optional Chrome trace of the click (BENCH_CLICK_TRACE=1): written to .bench/click/ (open it in
// chrome://tracing or Perfetto), and summarized as the busiest work of each renderer main thread
// between the click and the paint (inclusive times of the trace's events, so nested ones overlap).
import type { CDPSession, Page } from 'playwright-core';

const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'blink',
  'blink.user_timing',
  'toplevel',
  'ipc',
].join(',');

export interface Trace {
  stop(): Promise<Record<string, any>[]>;
}

export async function startTrace(page: Page): Promise<Trace> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: Record<string, any>[] = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as Record<string, any>[])));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  return {
    stop: async () => {
      const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
      await cdp.send('Tracing.end');
      await done;
      await cdp.detach();
      return events;
    },
  };
}

/**
 * Per renderer main thread: the time it was busy (top-level tasks) in [from, to] (trace µs), and the
 * events that took the most of it, by name (with the script URL's file for function calls and the
 * event type for dispatches).
 */
export function summarize(
  events: Record<string, any>[],
  from: number,
  to: number,
): Record<string, { busyMs: number; top: [string, number][] }> {
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  const out: Record<string, { busyMs: number; top: [string, number][] }> = {};
  const byThread = new Map<string, Record<string, any>[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.ts + (e.dur ?? 0) < from || e.ts > to) continue;
    const t = `${e.pid}:${e.tid}`;
    if (names.get(t) !== 'CrRendererMain') continue;
    (byThread.get(t) ?? byThread.set(t, []).get(t)!).push(e);
  }
  for (const [t, es] of byThread) {
    const busy = es
      .filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask')
      .reduce((n, e) => n + e.dur, 0);
    const sums = new Map<string, number>();
    for (const e of es) {
      if (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') continue;
      const d = e.args?.data ?? {};
      const key =
        e.name === 'FunctionCall'
          ? `FunctionCall ${String(d.url ?? '')
              .split('/')
              .pop()}`
          : e.name === 'EventDispatch'
            ? `EventDispatch ${d.type}`
            : e.name;
      sums.set(key, (sums.get(key) ?? 0) + e.dur);
    }
    const top = [...sums]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([k, v]) => [k, Math.round(v / 1000)] as [string, number]);
    out[`renderer ${t}`] = { busyMs: Math.round(busy / 1000), top };
  }
  return out;
}

/** A JS CPU profile of the workbench page's renderer main thread (the webview frames share it in code-server). */
export async function startProfile(page: Page): Promise<{ stop(): Promise<Record<string, any>> }> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await cdp.send('Profiler.stop');
      await cdp.detach();
      return profile as unknown as Record<string, any>;
    },
  };
}

/** Self time by function (name and script file), the top `n`, in ms. */
export function topSelf(profile: Record<string, any>, n = 30): [string, number][] {
  const byId = new Map<number, Record<string, any>>(profile.nodes.map((x: Record<string, any>) => [x.id, x]));
  const self = new Map<number, number>();
  const samples: number[] = profile.samples;
  const deltas: number[] = profile.timeDeltas;
  for (let i = 0; i < samples.length; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + (deltas[i + 1] ?? 0));
  const sums = new Map<string, number>();
  for (const [id, us] of self) {
    const cf = byId.get(id)!.callFrame;
    const key = `${cf.functionName || '(anonymous)'} ${String(cf.url).split('/').pop()?.split('?')[0]}:${cf.lineNumber}`;
    sums.set(key, (sums.get(key) ?? 0) + us);
  }
  return [...sums]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => [k, Math.round(v / 1000)]);
}
