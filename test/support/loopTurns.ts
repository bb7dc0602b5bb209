// Counts turns of the event loop (a setImmediate chain) while some work runs: a test of "gives the loop
// its turns" reads how many passed.
export function countTurns(): { readonly count: number; stop(): void } {
  let count = 0;
  let on = true;
  const tick = () => {
    count++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    stop() {
      on = false;
    },
  };
}
