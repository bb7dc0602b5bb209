// Concurrent writers and crashes: pi-tree and a real pi SessionManager appending to one file at the
// same time (separate processes), two pi-tree sessions on one file, kills in the middle of a migration
// rewrite and of a fork, and write errors. Nothing may be lost, torn or interleaved.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Session } from '../../src/core/session/session.js';
import { piOpen } from '../support/pi.js';
import { sessionText, tempDir, tempFile, user } from '../support/tmp.js';

const ROOT = join(__dirname, '..', '..');

function run(script: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** Kills a child and waits for it, whether or not it already exited (no lost 'exit' event). */
function killAndWait(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    p.once('exit', () => resolve());
    p.kill('SIGKILL');
  });
}

/** Runs a writer script to the end and returns the write steps it passed (see test/support/writers/stopAt.ts). */
async function stepsOf(script: string, args: string[]): Promise<string[]> {
  const r = await run(`test/support/writers/${script}`, args);
  assert.equal(r.code, 0, r.err);
  return r.out
    .split('\n')
    .filter((l) => l.startsWith('step '))
    .map((l) => l.slice(5));
}

/** Starts a writer script, waits until it reports that it stopped at `step`, and kills it there. */
async function killAt(script: string, args: string[], step: string): Promise<void> {
  const p = spawn(process.execPath, ['--import', 'tsx', `test/support/writers/${script}`, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PI_TREE_STOP_AT: step },
  });
  let out = '';
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  const stopped = await new Promise<boolean>((resolve) => {
    p.stdout.on('data', (d) => {
      out += d;
      if (out.includes(`stopped ${step}\n`)) resolve(true);
    });
    p.on('exit', () => resolve(false));
  });
  await killAndWait(p);
  assert.ok(stopped, `the writer never reached the step "${step}" (it printed: ${out.trim()}; ${err.trim()})`);
}

function allLinesParse(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), 'file ends with a newline');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l, i) => {
      try {
        return JSON.parse(l);
      } catch {
        assert.fail(`line ${i + 1} is torn or interleaved: ${l.slice(0, 120)}`);
      }
    });
}

describe('concurrent writers', () => {
  it('pi 1.6.0 and pi-tree appending at the same time: no torn line, no lost entry, both readers agree', async () => {
    const file = tempFile(sessionText([user('u1', null, 'start')]));
    const N = 1500;
    const [pi, tree] = await Promise.all([
      run('test/support/writers/pi-appender.mjs', [file, String(N)]),
      run('test/support/writers/tree-appender.ts', [file, String(N)]),
    ]);
    assert.equal(pi.code, 0, pi.err);
    assert.equal(tree.code, 0, tree.err);
    const lines = allLinesParse(file);
    const fromPi = lines.filter((e) =>
      (e.message as { content?: string } | undefined)?.content?.toString().startsWith('pi '),
    );
    const fromTree = lines.filter((e) => e.type === 'custom' && e.customType === 'pi-tree-writer');
    assert.equal(fromPi.length, N, 'every pi entry is in the file');
    assert.equal(fromTree.length, N, 'every pi-tree entry is in the file');
    const ids = lines.slice(1).map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'ids unique');
    // both readers agree on the result
    const ours = await Session.open(file);
    const sm = await piOpen(file);
    assert.equal(ours.index.size, sm.getEntryCount());
    assert.equal(ours.leafId, sm.getLeafId());
    assert.equal(
      JSON.stringify((await ours.buildContext()).messages),
      JSON.stringify(sm.buildSessionContext().messages),
    );
  });

  it('two pi-tree sessions on one file: appends serialized, each follows the other', async () => {
    const file = tempFile(sessionText([user('u1', null, 'start')]));
    const a = await Session.open(file);
    const b = await Session.open(file);
    for (let i = 0; i < 50; i++) {
      await Promise.all([a.setLabel('u1', `a${i}`), b.setName(`b${i}`)]);
    }
    const lines = allLinesParse(file);
    assert.equal(lines.length, 102);
    // every entry hangs under the one before it: each writer read the other's append first
    for (let i = 2; i < lines.length; i++) assert.equal(lines[i].parentId, lines[i - 1].id, `line ${i + 1}`);
    await a.refresh();
    await b.refresh();
    assert.equal(a.leafId, b.leafId);
    assert.equal(a.name, 'b49');
  });
});

describe('crashes and write errors', () => {
  it('killed at each step of a migration rewrite: the old or the new file is whole, the backup exists once it changed, no half file where pi reads', async () => {
    const dir = tempDir();
    const fixture = join(__dirname, '..', 'fixtures', 'real', 'pi-mono-large-session.v1.jsonl');
    const original = readFileSync(fixture);
    // An uninterrupted run names the steps it passes: each is then a place to stop and kill.
    const whole = join(dir, 'whole.jsonl');
    copyFileSync(fixture, whole);
    assert.deepEqual(await stepsOf('migrate-once.ts', [whole]), [
      'temp-written',
      'temp-synced',
      'backup-made',
      'in-place',
      'dir-synced',
    ]);
    for (const step of ['temp-written', 'temp-synced', 'backup-made', 'in-place', 'dir-synced'] as const) {
      const file = join(dir, `${step}.jsonl`);
      copyFileSync(fixture, file);
      await killAt('migrate-once.ts', [file], step);
      const replaced = step === 'in-place' || step === 'dir-synced';
      if (replaced) {
        assert.equal(allLinesParse(file)[0].version, 3, `${step}: the new file is whole`);
      } else {
        assert.deepStrictEqual(readFileSync(file), original, `${step}: the original is untouched`);
      }
      const hasBackup = step !== 'temp-written' && step !== 'temp-synced';
      assert.equal(existsSync(`${file}.v1.bak`), hasBackup, `${step}: the backup exists from its step on`);
      if (hasBackup) assert.deepStrictEqual(readFileSync(`${file}.v1.bak`), original);
      const jsonl = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
      assert.ok(
        jsonl.every((f) => f === 'whole.jsonl' || /^[a-z-]+\.jsonl$/.test(f)),
        `only whole sessions end in .jsonl: ${jsonl.join(', ')}`,
      );
    }
  });

  it('killed at each step of a fork: no partial session file is left for pi to list', async () => {
    const dir = tempDir();
    const big = join(dir, 'src.jsonl');
    const entries = [user('u0', null, 'x'.repeat(1000))];
    for (let i = 1; i < 20000; i++) entries.push(user(`u${i}`, `u${i - 1}`, `message ${i} ${'y'.repeat(400)}`));
    writeFileSync(big, sessionText(entries));
    const forks = () => readdirSync(dir).filter((n) => n.endsWith('.jsonl') && n !== 'src.jsonl');
    const steps = await stepsOf('fork-once.ts', [big, 'u19999']);
    assert.deepEqual(steps, ['temp-written', 'temp-synced', 'in-place', 'dir-synced']);
    for (const f of forks()) rmSync(join(dir, f));
    for (const step of steps) {
      await killAt('fork-once.ts', [big, 'u19999'], step);
      const made = forks();
      assert.equal(
        made.length,
        step === 'in-place' || step === 'dir-synced' ? 1 : 0,
        `${step}: a new session file only once it is whole`,
      );
      for (const f of made) {
        assert.equal(
          allLinesParse(join(dir, f)).length,
          1 + 20000,
          `${step}: ${f} is whole: the header and the 20000 entries of the path`,
        );
        rmSync(join(dir, f));
      }
    }
  });

  it('read-only file and permission denied: a clear error, the file unchanged', async () => {
    if (process.getuid?.() === 0) {
      // root ignores file modes; use a directory-less path instead to exercise the error path
      const missing = join(tempDir(), 'gone.jsonl');
      writeFileSync(missing, sessionText([user('u1', null, 'a')]));
      const s = await Session.open(missing);
      (await import('node:fs')).unlinkSync(missing);
      await assert.rejects(s.setName('x'), /ENOENT/);
      assert.equal(existsSync(missing), false, 'a vanished session is not re-created');
      return;
    }
    const file = tempFile(sessionText([user('u1', null, 'a')]));
    const before = readFileSync(file);
    chmodSync(file, 0o444);
    const s = await Session.open(file);
    await assert.rejects(s.setName('x'), /EACCES|EPERM/);
    assert.deepStrictEqual(readFileSync(file), before);
    chmodSync(dirname(file), 0o755);
  });

  it('a write that fails part-way (file-size limit, as a full disk) is taken back, the file unchanged', async () => {
    // Under `ulimit -f` the kernel writes what fits and then fails with EFBIG: a real torn append.
    const file = tempFile(sessionText([user('u1', null, 'one')]));
    const before = readFileSync(file);
    const script = join(__dirname, '..', 'support', 'appendOnce.ts');
    const r = spawnSync(
      'bash',
      ['-c', 'ulimit -f 4; exec "$0" --import tsx "$1" "$2" 8000', process.execPath, script, file],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /EFBIG/);
    assert.deepStrictEqual(readFileSync(file), before);
    // and a device is not a session file: refused before anything is written
    if (existsSync('/dev/full')) {
      const { JsonlStorage } = await import('../../src/core/session/storage.js');
      await assert.rejects(new JsonlStorage('/dev/full').append('{"x":1}\n'), /is a device, not a regular file/);
    }
  });
});
