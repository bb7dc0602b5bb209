// Crash leftovers, made for real: a clone killed (SIGKILL) at its named step 'temp-written' leaves its
// hidden temp copy, and a pi-tree process killed while its headless pi runs leaves that pi's private
// folder with a copy of the session. The next start (a CLI command writing in that folder, the
// extension's activation) collects exactly those once they are old enough, and nothing else: not a
// fresh one, not another name, not a link, not a folder, not another user's file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chownSync,
  existsSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../src/cli.js';
import { pidAlive } from '../../../src/core/piClient/discovery.js';
import { collectHeadlessDirs, collectLeftovers, LEFTOVER_AGE_MS } from '../../../src/core/session/leftovers.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { completionSse, startLoopback, type Loopback } from '../../support/loopbackOpenAI.js';
import {
  assistantOf,
  BRIDGE,
  makePiEnv,
  PI_REPLY_MS,
  piShim,
  sessionBuilder,
  writeSession,
} from '../../support/piRpc.js';
import { sessionText, tempDir, user } from '../../support/tmp.js';
import { until } from '../../../scripts/lib/until.js';

const ROOT = join(__dirname, '..', '..', '..');
const TEMP = /^\..+\.jsonl\.[0-9a-f]{8}\.tmp$/;

/** Starts a writer script, waits for its "stopped <step>" line, kills it there (SIGKILL); returns that line and its pid. */
async function killAt(
  script: string,
  args: string[],
  step: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ line: string; pid: number }> {
  const p = spawn(process.execPath, ['--import', 'tsx', join('test', 'support', 'writers', script), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, PI_TREE_STOP_AT: step },
  });
  let out = '';
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  const line = await new Promise<string | undefined>((resolve) => {
    p.stdout.on('data', (d) => {
      out += d;
      const m = new RegExp(`^stopped ${step}\\b.*$`, 'm').exec(out);
      if (m) resolve(m[0]);
    });
    void exited.then(() => resolve(undefined));
  });
  p.kill('SIGKILL');
  await exited;
  assert.ok(line, `the writer never reached "${step}" (it printed: ${out.trim()}; ${err.trim()})`);
  return { line, pid: p.pid! };
}

/** Sets a path's times (not its target's) `LEFTOVER_AGE_MS` + 1 minute back. */
const age = (p: string) => {
  const t = new Date(Date.now() - LEFTOVER_AGE_MS - 60_000);
  lutimesSync(p, t, t);
};

const io = () => ({ out: () => {}, err: () => {}, env: {} });

describe('crash leftovers are collected on the next start', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback((_req, n) => completionSse(`answer ${n}`));
  });
  after(async () => {
    await lb?.close();
  });

  it('a clone killed after writing its temp copy: the next CLI write in that folder, then activation, collect the old copies and keep everything else', async () => {
    const agentDir = tempDir('pi-tree-agent-');
    const repo = new SessionRepository({ agentDir, env: {} });
    const dir = join(repo.sessionsRoot, '--work--');
    mkdirSync(dir, { recursive: true });
    const src = join(dir, 'src.jsonl');
    writeFileSync(src, sessionText([user('u1', null, 'one'), user('u2', 'u1', 'two'), user('u3', 'u2', 'three')]));
    for (let k = 0; k < 3; k++) await killAt('fork-once.ts', [src, 'u3'], 'temp-written');
    const made = readdirSync(dir).filter((n) => TEMP.test(n));
    assert.equal(made.length, 3, `three kills, three hidden temp copies: ${made.join(', ')}`);
    for (const n of made)
      assert.match(readFileSync(join(dir, n), 'utf8'), /^\{"type":"session"/, `${n} holds the copy written so far`);
    const [first, second, third] = made.map((n) => join(dir, n));
    age(first);

    // what must stay, however old
    const elsewhere = tempDir('pi-tree-victim-');
    const victim = join(elsewhere, 'precious.jsonl');
    writeFileSync(victim, 'precious\n');
    const keep = [
      join(dir, '.notes.jsonl.tmp'),
      join(dir, '.x.jsonl.ABCDEF12.tmp'),
      join(dir, 'x.jsonl.abcdef12.tmp'),
      join(dir, '.y.json.abcdef12.tmp'),
      join(dir, '.z.jsonl.abcdef12.tmp.bak'),
    ];
    for (const p of keep) writeFileSync(p, 'not ours\n');
    const link = join(dir, '.link.jsonl.0badc0de.tmp');
    symlinkSync(victim, link);
    const folder = join(dir, '.dir.jsonl.0123abcd.tmp');
    mkdirSync(folder);
    keep.push(link, folder);
    if (process.getuid?.() === 0) {
      const other = join(dir, '.other.jsonl.89abcdef.tmp');
      writeFileSync(other, 'another user\n');
      chownSync(other, 4242, 4242);
      keep.push(other);
    }
    for (const p of keep) age(p);

    // the next write in that folder: pi-tree clone
    assert.equal(await main(['clone', src, '--file-only'], io()), 0);
    assert.equal(existsSync(first), false, 'the old temp copy is collected');
    assert.ok(existsSync(second) && existsSync(third), 'the fresh ones stay');
    for (const p of keep) assert.ok(existsSync(p), `${basename(p)} stays`);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');

    // the next activation: every folder pi-tree lists
    age(third);
    const removed = await collectLeftovers(await repo.sessionFolders(), tempDir('pi-tree-tmp-'));
    assert.deepEqual(removed, [third]);
    assert.ok(existsSync(second));
    for (const p of keep) assert.ok(existsSync(p), `${basename(p)} stays`);
  });

  it("pi-tree killed while its headless pi runs: pi's private folder (a copy of the session) is collected once old and its pid gone; the rest stays", async () => {
    const pe = makePiEnv(lb);
    const bin = piShim(pe.workDir);
    const b = sessionBuilder(pe.workDir);
    b.user('hello');
    assistantOf(b, 'hi');
    const file = writeSession(b, join(pe.workDir, 'headless.jsonl'));
    const tmp = tempDir('pi-tree-tmp-');
    const { line, pid } = await killAt('headless-once.ts', [file, bin, BRIDGE], 'headless', { ...pe.env, TMPDIR: tmp });
    const [, , piPid, work] = line.split(' ');
    // pi reads EOF on its stdin when pi-tree dies, and exits
    await until(() => !pidAlive(Number(piPid)), PI_REPLY_MS, `pi ${piPid} to exit`);
    assert.ok(basename(work).startsWith(`pi-tree-pi-${pid}-`), `the folder names its pi-tree process: ${work}`);
    assert.ok(existsSync(join(work, basename(file))), 'the leftover holds the copy of the session');
    assert.match(readFileSync(join(work, basename(file)), 'utf8'), /"text":"hello"/);
    assert.deepEqual(await collectHeadlessDirs(tmp), [], 'nothing is collected while it is fresh');
    age(work);

    const fresh = mkdtempSync(join(tmp, `pi-tree-pi-${pid}-`));
    const legacy = join(tmp, 'pi-tree-pi-Ab12Cd'); // the name before the pid was in it
    const living = join(tmp, `pi-tree-pi-${process.pid}-Ab12Cd`); // its pi-tree still runs
    const foreign = [
      join(tmp, 'pi-tree-pix-Ab12Cd'),
      join(tmp, 'pi-tree-pi-Ab12'),
      join(tmp, `pi-tree-pi-${pid}-Ab12Cd-x`),
    ];
    for (const d of [legacy, living, ...foreign]) mkdirSync(d);
    const elsewhere = tempDir('pi-tree-victim-');
    writeFileSync(join(elsewhere, 'precious'), 'precious\n');
    const link = join(tmp, `pi-tree-pi-${pid}-LinkLk`);
    symlinkSync(elsewhere, link);
    const plain = join(tmp, `pi-tree-pi-${pid}-FileFl`);
    writeFileSync(plain, 'a file\n');
    for (const p of [legacy, living, ...foreign, link, plain]) age(p);

    const removed = await collectHeadlessDirs(tmp);
    assert.deepEqual(removed.sort(), [legacy, work].sort());
    for (const p of [fresh, living, ...foreign, link, plain]) assert.ok(existsSync(p), `${basename(p)} stays`);
    assert.equal(
      readFileSync(join(elsewhere, 'precious'), 'utf8'),
      'precious\n',
      'nothing is followed through the link',
    );
  });
});
