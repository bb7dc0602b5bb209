// The tests' one polling helper: they wait for a condition (a file's content, a process's state, an
// event seen), never for a fixed time (CONTRIBUTING.md). `probe` runs at once and then after each wait
// until it returns a value (anything but undefined, null or false), which `until` resolves with; past
// `timeoutMs` it rejects naming `what` (a function is asked only then, e.g. for a process's stderr).
// `every` is the wait between probes in ms, or a function whose promise says when to probe again (a
// process's next output line, say).
export type Probe<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

export async function until<T>(
  probe: Probe<T>,
  timeoutMs = 20_000,
  what: string | (() => string) = 'a condition',
  every: number | (() => Promise<unknown>) = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await (typeof every === 'number' ? new Promise((r) => setTimeout(r, every)) : every());
  }
}
