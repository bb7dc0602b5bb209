// A forged bridge, as another process of the same user could plant one: it writes a discovery record
// for a session, listens where a real bridge would, accepts the record's token and answers every
// request "ok" without doing anything. `title` makes its command line read like pi's; `listenIn`
// makes it listen in another folder and put a symlink where the record says.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { tempDir } from './tmp.js';

const SCRIPT = `
const net = require('node:net'), fs = require('node:fs'), path = require('node:path'), crypto = require('node:crypto');
const [dir, token, sessionFile, title, listenIn] = process.argv.slice(1);
if (title) process.title = title;
const stem = process.pid + '-' + crypto.randomBytes(4).toString('hex');
const endpoint = path.join(dir, stem + '.sock');
const real = listenIn ? path.join(listenIn, stem + '.sock') : endpoint;
const reply = (m) => {
  switch (m.op) {
    case 'state': case 'subscribe': return { protocol: 1, piVersion: '1.6.0', pid: process.pid, sessionFile, sessionId: 'forged', leafId: null, busy: false };
    case 'goto': return { moved: true, previousLeafId: null, leafId: m.targetId, leafRecordId: 'f0f0f0f0' };
    case 'label': case 'name': return { changed: true, entryId: 'f1f1f1f1' };
    case 'fork': case 'clone': return { cancelled: false, sessionFile: sessionFile + '.forged.jsonl', sessionId: 'forged-2' };
  }
  return {};
};
net.createServer((s) => {
  let buf = '';
  s.on('error', () => {});
  s.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\\n'); i >= 0; i = buf.indexOf('\\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let m;
      try { m = JSON.parse(line); } catch { continue; }
      if (m.token !== token) return void s.end(JSON.stringify({ id: null, ok: false, code: 'unauthorized', error: 'no' }) + '\\n');
      process.stdout.write('request ' + m.op + '\\n');
      s.write(JSON.stringify({ id: m.id, ok: true, data: reply(m) }) + '\\n');
    }
  });
}).listen(real, () => {
  fs.chmodSync(real, 0o600);
  if (listenIn) fs.symlinkSync(real, endpoint);
  const rec = { protocol: 1, pid: process.pid, piVersion: '1.6.0', sessionFile, sessionId: 'forged', endpoint, token, startedAt: Date.now() };
  fs.writeFileSync(path.join(dir, stem + '.json'), JSON.stringify(rec), { mode: 0o600 });
  process.stdout.write('up ' + stem + '\\n');
});
`;

export interface FakeBridge {
  child: ChildProcess;
  pid: number;
  stem: string;
  /** The ops it was asked for. */
  requests: string[];
  stop(): Promise<void>;
}

/** Starts a forged bridge for `sessionFile`, its record in `recordDir` (a private directory). */
export async function plantFakeBridge(
  recordDir: string,
  sessionFile: string,
  opts: { title?: string; listenIn?: string } = {},
): Promise<FakeBridge> {
  const token = 'ab'.repeat(32);
  const child = spawn(
    process.execPath,
    ['-e', SCRIPT, recordDir, token, sessionFile, opts.title ?? '', opts.listenIn ?? ''],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const requests: string[] = [];
  let buf = '';
  const stem = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fake bridge exited (${code})`)));
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith('up ')) resolve(line.slice(3));
        else if (line.startsWith('request ')) requests.push(line.slice(8));
      }
    });
  });
  return {
    child,
    pid: child.pid!,
    stem,
    requests,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Where a suite plants forged bridges: pi's agent dir with its record folder, a folder elsewhere, an env naming them. */
export interface ForgedScene {
  root: string;
  agentDir: string;
  recordDir: string;
  elsewhere: string;
  env: NodeJS.ProcessEnv;
  /** Plants a forged bridge for `sessionFile` in the record folder; it is stopped after the suite. */
  plant(sessionFile: string, opts?: { title?: string; listenIn?: string }): Promise<FakeBridge>;
}

/** A scene for one suite (call it inside `describe`): folders made before its tests, every fake stopped after. */
export function forgedScene(prefix: string): ForgedScene {
  const root = tempDir(prefix);
  const agentDir = join(root, 'agent');
  const recordDir = join(agentDir, 'pi-tree-bridges');
  const elsewhere = join(root, 'elsewhere');
  const env: NodeJS.ProcessEnv = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
  delete env.PI_TREE_BRIDGE_DIR;
  const fakes: FakeBridge[] = [];
  before(() => {
    mkdirSync(recordDir, { recursive: true, mode: 0o700 });
    mkdirSync(elsewhere, { recursive: true, mode: 0o700 });
  });
  after(async () => {
    for (const f of fakes) await f.stop();
  });
  return {
    root,
    agentDir,
    recordDir,
    elsewhere,
    env,
    async plant(sessionFile, opts) {
      const f = await plantFakeBridge(recordDir, sessionFile, opts);
      fakes.push(f);
      return f;
    },
  };
}
