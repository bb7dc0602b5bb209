// The host's account of the first snapshot, from the "pi Session Tree" log line the tree controller
// writes once per panel: "(from the panel's creation: read+index 812 ms, webview ready 640 ms, first
// screen 900 ms, first part 1520 ms, all sent 3100 ms)", plus the line's own time (wall clock, ms) so that the panel's
// creation can be placed on the bench's timeline. `nth`: which panel (0: the first opened; -1: the last).
export function hostTimings(log: string, nth = 0): Record<string, number> | undefined {
  const m = [
    ...log.matchAll(
      /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) .*from the panel's creation: read\+index (\d+) ms, webview ready (\d+) ms, first screen (\d+|\?)(?: ms)?, first part (\d+) ms, all sent (\d+) ms/gm,
    ),
  ].at(nth);
  if (!m) return undefined;
  const [, day, time, open, ready, preview, firstPart, sent] = m;
  const loggedAt = new Date(`${day}T${time}`).getTime(); // local time, as VS Code writes it
  return {
    created: loggedAt - Number(sent),
    open: Number(open),
    ready: Number(ready),
    preview: preview === '?' ? NaN : Number(preview),
    firstPart: Number(firstPart),
    sent: Number(sent),
  };
}
