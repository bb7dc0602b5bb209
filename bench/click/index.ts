// The click benchmark as a step of `npm run bench` (bench/run.ts): runs bench/click.ts in a process
// of its own when code-server is installed, and says why not otherwise.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { codeServerInstall } from '../../scripts/lib/codeServer';

export { clickSection, withClickSection } from './section';

/** Runs the click benchmark (it writes its own section of BENCHMARKS.md); false when it could not run. */
export function runClickBench(root: string, log: (s: string) => void): boolean {
  try {
    codeServerInstall();
  } catch (e) {
    log(
      `click bench skipped: ${e instanceof Error ? e.message : String(e)} (or set PI_TREE_CODE_SERVER_DIR to an installed one)`,
    );
    return false;
  }
  log('click bench: a fresh code-server per open, about a minute each…');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'click.ts')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) log(`click bench failed (exit ${r.status})`);
  return r.status === 0;
}
