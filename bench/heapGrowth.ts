// How much the heap (with typed arrays and buffers, which the index's columns are) grows under some work.

const used = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/**
 * Samples the heap every `everyMs` from now (and at sample(): right after work that may end between two
 * samples); stop(gc) gives its growth at the peak and, after `gc` (--expose-gc's, so that only what is
 * still held counts), at the end, in MB.
 */
export function heapGrowth(everyMs: number): {
  sample(): void;
  stop(gc: () => void): { peakMb: number; afterMb: number };
} {
  const at0 = used();
  let peak = at0;
  const sample = () => {
    const h = used();
    if (h > peak) peak = h;
  };
  const sampler = setInterval(sample, everyMs);
  return {
    sample,
    stop(gc: () => void) {
      clearInterval(sampler);
      sample();
      gc();
      return { peakMb: (peak - at0) / 1e6, afterMb: (used() - at0) / 1e6 };
    },
  };
}
