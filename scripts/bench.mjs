// `npm run bench`: builds, then runs bench/run.ts (Node 24, through tsx). Not part of `npm test`.
import { spawnSync } from 'node:child_process';
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/run.ts'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
