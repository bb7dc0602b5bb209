// A project for variant tests: a working folder (a git repository of the "user's" own, so tests can
// check its .git stays byte for byte), pi's agent dir and session folder beside it, and a SimPi whose
// turns write files and capture checkpoints as the bridge does.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Session } from '../../src/core/session/session.js';
import { SimPi } from './simPi.js';
import { tempDir } from './tmp.js';

export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

export const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });

export function variantProject(files: Record<string, string> = {}, o: { git?: boolean; capture?: boolean } = {}) {
  const root = tempDir('pi-variant-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  const put = (p: string, text: string | Buffer, mode?: number) => {
    mkdirSync(dirname(join(cwd, p)), { recursive: true });
    writeFileSync(join(cwd, p), text);
    if (mode !== undefined) chmodSync(join(cwd, p), mode);
  };
  for (const [p, t] of Object.entries(files)) put(p, t);
  if (o.git !== false) {
    const g = (...a: string[]) =>
      execFileSync('git', a, {
        cwd,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'u',
          GIT_AUTHOR_EMAIL: 'u@x',
          GIT_COMMITTER_NAME: 'u',
          GIT_COMMITTER_EMAIL: 'u@x',
        },
      });
    g('init', '-q');
    g('add', '-A');
    g('commit', '-q', '--allow-empty', '-m', 'user commit');
  }
  const sim = new SimPi(cwd, agentDir, { sessionDir: sessions, capture: o.capture, watch: false });
  const read = (p: string) => readFileSync(join(cwd, p), 'utf8');
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
    });
  const session = () => Session.open(sim.file);
  return { root, cwd, agentDir, sessions, sim, put, read, cli, session };
}
