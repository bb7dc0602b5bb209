// Preloaded into a measured process: reports its wall time, CPU time (all threads) and peak RSS on exit
// (to fd 2, one line).
const t0 = process.hrtime.bigint();
process.on('exit', () => {
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const u = process.resourceUsage();
  require('node:fs').writeSync(
    2,
    `\n@@bench ${JSON.stringify({ ms, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS })}\n`,
  );
});
