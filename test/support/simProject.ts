// A project for checkpoint tests: a working folder, pi's agent dir and session folder beside it, a SimPi
// whose turns write files and capture checkpoints as the bridge does, and the session's code as pi-tree
// reads it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sessionCode } from '../../src/core/checkpoints/index.js';
import { Session } from '../../src/core/session/session.js';
import { SimPi } from './simPi.js';
import { tempDir } from './tmp.js';

export function simProject(prefix: string) {
  const root = tempDir(prefix);
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  const sim = new SimPi(cwd, agentDir, { sessionDir: sessions });
  const put = (p: string, text: string) => {
    mkdirSync(dirname(join(cwd, p)), { recursive: true });
    writeFileSync(join(cwd, p), text);
  };
  const read = (p: string) => readFileSync(join(cwd, p), 'utf8');
  const code = async () => sessionCode(await Session.open(sim.file), { agentDir });
  return { root, cwd, agentDir, sessions, sim, put, read, code };
}
