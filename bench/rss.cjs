// Preloaded into a measured process: reports its wall time and peak RSS on exit (to fd 2, one line).
const t0 = process.hrtime.bigint();
process.on('exit', () => {
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  require('node:fs').writeSync(2, `\n@@bench ${JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS })}\n`);
});
