// A counting gate for the variants of one run: at most `n` run at once, the others wait in order, and
// a cancelled one leaves the line without ever taking a slot.

/** A counting gate: at most `n` holders; waiters go in order, and one whose signal aborts leaves the line. */
export function slots(n: number) {
  let free = n;
  const waiting: (() => void)[] = [];
  return {
    /** Resolves true once a slot is this caller's, false when `signal` aborts first (no slot taken). */
    take: (signal: AbortSignal) =>
      new Promise<boolean>((r) => {
        if (signal.aborted) return r(false);
        if (free > 0) {
          free--;
          return r(true);
        }
        const mine = () => {
          signal.removeEventListener('abort', leave);
          r(true);
        };
        const leave = () => {
          const at = waiting.indexOf(mine);
          if (at >= 0) waiting.splice(at, 1);
          r(false);
        };
        waiting.push(mine);
        signal.addEventListener('abort', leave, { once: true });
      }),
    give: () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
