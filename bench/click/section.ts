// The "From the click, in real VS Code" section of BENCHMARKS.md: written by the click benchmark
// between its markers, and kept by bench/run.ts when it rewrites the rest of the file.
export const START = '<!-- click-bench:start -->';
export const END = '<!-- click-bench:end -->';

/** The section as it stands in `md` (markers included), or ''. */
export function clickSection(md: string): string {
  const a = md.indexOf(START);
  const b = md.indexOf(END);
  return a >= 0 && b > a ? md.slice(a, b + END.length) : '';
}

/** `md` with the section replaced (or added at the end). */
export function withClickSection(md: string, section: string): string {
  const old = clickSection(md);
  if (!section) return md;
  if (old) return md.replace(old, section);
  return `${md.replace(/\n*$/, '\n')}\n${section}\n`;
}
