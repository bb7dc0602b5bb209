// Variants: what a run of N variants costs beyond its variants' own work. runVariants with 3 variants
// at once (count 3, jobs 3: no model check, so no extra pi) of the real pi 1.6.0 with the bridge, on a
// small project against the loopback model, whose answer makes each pi write a file. Each variant's
// own work is its folder made and its turn (pi started, the model's answer, pi stopped); the overhead is
// the run's wall time minus the slowest variant's folder + turn: the session opened, the records
// written, the files compared, the queue. The files compared are shown apart too.
// BENCH_ONLY=variantsrun; BENCH_RUNS the runs (at most 5).
import { loadavg } from 'node:os';
import { discardVariant, listVariants, runVariants } from '../src/core/variants/index.js';
import { BRIDGE, PI_PROGRAM, startVariantsPi, VARIANT_PROMPT } from '../test/support/variantsPi.js';
import { fmt, log, median, mmm, rows, RUNS } from './report';

export async function variantsRunBench(): Promise<void> {
  const vp = await startVariantsPi();
  const l0 = loadavg()[0];
  const wall: number[] = [];
  const slowest: number[] = [];
  const overhead: number[] = [];
  const files: number[] = [];
  const turns: number[] = [];
  try {
    const runs = Math.min(RUNS, 5);
    // (one run first, not counted: pi's first start in a fresh agent dir transpiles the bridge)
    for (let run = -1; run < runs; run++) {
      const t0 = performance.now();
      const outs = await runVariants({
        agentDir: vp.pe.agentDir,
        sessionFile: vp.file,
        entryId: vp.nodeId,
        prompt: VARIANT_PROMPT,
        count: 3,
        jobs: 3,
        pi: PI_PROGRAM,
        bridge: BRIDGE,
        env: vp.pe.env,
      }).done;
      const ms = performance.now() - t0;
      const bad = outs.find((o) => o.phase !== 'done');
      if (bad) throw new Error(`variant ${bad.index} ${bad.phase}: ${bad.error}`);
      const own = Math.max(...outs.map((o) => (o.steps?.prepare ?? 0) + (o.steps?.turn ?? 0)));
      log(
        `variants run ${run + 1}: ${fmt(ms)} ms, the slowest variant's folder + turn ${fmt(own)} ms, files compared ${outs.map((o) => fmt(o.steps?.files ?? 0)).join(', ')} ms`,
      );
      if (run < 0) continue;
      wall.push(ms);
      slowest.push(own);
      overhead.push(ms - own);
      files.push(...outs.map((o) => o.steps?.files ?? 0));
      turns.push(...outs.map((o) => o.steps?.turn ?? 0));
    }
    for (const rec of listVariants(vp.pe.agentDir)) await discardVariant(vp.pe.agentDir, rec, { deleteSession: true });
  } finally {
    await vp.stop();
  }
  rows.push({
    what: 'variants: N variants overhead, 3 at once',
    how: `runVariants with count 3, jobs 3 on a 2-file project: each variant's folder made, the real pi 1.6.0 (bridge loaded) running its turn against the loopback model (one write call, then the answer), its files compared with the code at the node; ${wall.length} runs after one not counted; overhead = the run's wall time − the slowest variant's folder + turn`,
    target: 'overhead < 500 ms',
    result: `overhead ${mmm(overhead)}; run ${mmm(wall)}; slowest folder + turn ${mmm(slowest)}; each turn ${mmm(turns)}; files compared ${mmm(files)}; load ${fmt(Math.min(l0, loadavg()[0]), 1)}–${fmt(Math.max(l0, loadavg()[0]), 1)}`,
    pass: median(overhead) < 500,
  });
  log(`${rows.at(-1)!.what}: ${rows.at(-1)!.result}`);
}
