// The webview's timers, animation frames and host requests, counted so that the test build can tell when
// the app is idle (nothing scheduled that could still change the page or message the host) and tests
// wait for that instead of sleeping. The app schedules through these instead of setTimeout and
// requestAnimationFrame; counting costs a Set insert per timer.

const timers = new Set<number>();
const frames = new Set<number>();
let requests = 0;
let waiters: (() => void)[] = [];
let checking = false;

/** setTimeout, counted. */
export function after(ms: number, fn: () => void): number {
  const id = window.setTimeout(() => {
    timers.delete(id);
    try {
      fn();
    } finally {
      settle();
    }
  }, ms);
  timers.add(id);
  return id;
}

export function cancelAfter(id: number): void {
  if (!timers.delete(id)) return;
  clearTimeout(id);
  settle();
}

/** requestAnimationFrame, counted. */
export function onFrame(fn: (time: number) => void): number {
  const id = requestAnimationFrame((time) => {
    frames.delete(id);
    try {
      fn(time);
    } finally {
      settle();
    }
  });
  frames.add(id);
  return id;
}

export function cancelFrame(id: number): void {
  if (!frames.delete(id)) return;
  cancelAnimationFrame(id);
  settle();
}

const idles = new Set<number>();

/**
 * requestIdleCallback, counted: work nobody waits for (the minimap's overview), run when input and
 * frames leave the thread free, at the latest after `timeout` ms.
 */
export function whenFree(fn: () => void, timeout = 500): number {
  const id = requestIdleCallback(
    () => {
      idles.delete(id);
      try {
        fn();
      } finally {
        settle();
      }
    },
    { timeout },
  );
  idles.add(id);
  return id;
}

/** Counts a host request until its reply (or error) has been handled. */
export function tracked<T>(p: Promise<T>): Promise<T> {
  requests++;
  const done = () => {
    requests--;
    settle();
  };
  p.then(done, done);
  return p;
}

export function busy(): boolean {
  return timers.size > 0 || frames.size > 0 || idles.size > 0 || requests > 0;
}

/** Resolves once nothing is scheduled or in flight (checked a task later, after promise continuations). */
export function whenIdle(): Promise<void> {
  return new Promise((resolve) => {
    waiters.push(resolve);
    settle();
  });
}

function settle(): void {
  if (!waiters.length || checking) return;
  checking = true;
  setTimeout(() => {
    checking = false;
    if (busy()) return; // the last one to finish checks again
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  }, 0);
}
