// How long work holds a thread at a stretch, apart from the time a loaded machine keeps it waiting.

/**
 * The longest stretch of this thread's CPU time between two turns of the event loop (a 1 ms timer: it
 * fires at the first turn after each millisecond, so a stretch is one piece of work): how long the work
 * held the thread, without the time a loaded machine kept it waiting. (A setImmediate ticker would keep
 * the loop from ever idling and spend a core on itself.)
 */
export function cpuChunks(): { stop(): number } {
  let last = process.threadCpuUsage();
  let max = 0;
  let on = true;
  const tick = () => {
    const now = process.threadCpuUsage();
    max = Math.max(max, (now.user - last.user + now.system - last.system) / 1000);
    last = now;
    if (on) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  return {
    stop() {
      on = false;
      tick();
      return max;
    },
  };
}
