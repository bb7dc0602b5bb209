// What a restore refuses, says in words, and never leaves half done: paths beyond a folder that is a
// symbolic link now, .git and nested repositories ("never captured", not "absent at the node"), a name
// near the file system's limit, a folder that became a file, a step that fails half way (put back, and
// nothing blocked afterwards), an interrupted restore of another session (its conversation is its own),
// a crafted session (files outside the folder, a forged working folder: confirmed by name), modes.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { planCode, sessionCode, writeCode } from '../../../../src/core/checkpoints/index.js';
import { onRestoreStep } from '../../../../src/core/checkpoints/restore/journalFiles.js';
import { RestoreRefusedError } from '../../../../src/core/checkpoints/restore/restoreErrors.js';
import { journals } from '../../../../src/core/checkpoints/restore/restoreJournal.js';
import { projectStore } from '../../../../src/core/checkpoints/store/storePaths.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

const ROOT = join(__dirname, '..', '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const KILLER = join(ROOT, 'test', 'support', 'restoreKill.ts');

function project(opts: { git?: boolean } = {}) {
  const root = tempDir('pi-cp-refuse-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  if (opts.git) execFileSync('git', ['init', '-q'], { cwd });
  const sim = new SimPi(cwd, agentDir, { sessionDir: sessions });
  const put = (p: string, text: string) => {
    mkdirSync(join(cwd, p, '..'), { recursive: true });
    writeFileSync(join(cwd, p), text);
  };
  const read = (p: string) => readFileSync(join(cwd, p), 'utf8');
  const cli = (args: string[], o: { cwd?: string } = {}) =>
    spawnSync(process.execPath, [CLI, ...args], {
      cwd: o.cwd ?? cwd,
      encoding: 'utf8',
      env: { ...process.env, PI_CODING_AGENT_DIR: agentDir },
    });
  const code = async () => sessionCode(await Session.open(sim.file), { agentDir });
  return { root, cwd, agentDir, sessions, sim, put, read, cli, code };
}

const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });

describe('what a restore refuses, in words', () => {
  it('never writes beyond a folder that is a symbolic link now (the preview names it; --force too)', async () => {
    const p = project();
    const t1 = await p.sim.turn('conf', [write('conf/app.txt', 'v1\n')], () => p.put('conf/app.txt', 'v1\n'));
    await p.sim.turn('conf 2', [write('conf/app.txt', 'v2\n')], () => p.put('conf/app.txt', 'v2\n'));
    const outside = join(p.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'app.txt'), 'not the project\n');
    rmSync(join(p.cwd, 'conf'), { recursive: true });
    symlinkSync(outside, join(p.cwd, 'conf'));
    const plan = await planCode(await p.code(), t1.answer);
    const item = plan.items.find((i) => i.key === 'conf/app.txt')!;
    assert.equal(item.action, 'unrestorable');
    assert.match(item.reason!, /conf is a symbolic link now/);
    const r = p.cli(['restore', p.sim.file, t1.answer, '--force']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /not restorable: conf\/app\.txt \(conf is a symbolic link now/);
    assert.equal(
      readFileSync(join(outside, 'app.txt'), 'utf8'),
      'not the project\n',
      'nothing written through the link',
    );
  });

  it('.git and a nested repository are never captured: not restorable, never deleted (even with --force)', async () => {
    const p = project({ git: true });
    mkdirSync(join(p.cwd, 'vendor', 'lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(p.cwd, 'vendor', 'lib') });
    const t1 = await p.sim.turn('one', [write('a.txt', 'a\n')], () => p.put('a.txt', 'a\n'));
    const config = readFileSync(join(p.cwd, '.git', 'config'), 'utf8');
    await p.sim.turn('poke', [write('.git/config', `${config}[x]\n`), write('vendor/lib/x.c', 'int x;\n')], () => {
      p.put('.git/config', `${config}[x]\n`);
      p.put('vendor/lib/x.c', 'int x;\n');
    });
    const plan = await planCode(await p.code(), t1.answer);
    const actions = Object.fromEntries(plan.items.map((i) => [i.key, [i.action, i.reason]]));
    assert.deepEqual(actions['.git/config']?.[0], 'unrestorable');
    assert.match(String(actions['.git/config']?.[1]), /never captured/);
    assert.deepEqual(actions['vendor/lib/x.c']?.[0], 'unrestorable');
    const r = p.cli(['restore', p.sim.file, t1.answer, '--force']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(join(p.cwd, '.git', 'config')), '.git/config is still there');
    assert.ok(existsSync(join(p.cwd, 'vendor', 'lib', 'x.c')));
  });

  it('a file name near the limit restores (the temp name has a fixed length)', async () => {
    const p = project();
    const name = `${'n'.repeat(240)}.txt`;
    const t1 = await p.sim.turn('long', [write(name, 'v1\n')], () => p.put(name, 'v1\n'));
    await p.sim.turn('long 2', [write(name, 'v2\n')], () => p.put(name, 'v2\n'));
    const r = p.cli(['restore', p.sim.file, t1.answer]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(p.read(name), 'v1\n');
    assert.equal(p.cli(['restore', p.sim.file, '--undo']).status, 0);
    assert.equal(p.read(name), 'v2\n');
  });

  it('a folder that became a file: refused before anything is written', async () => {
    const p = project();
    const t1 = await p.sim.turn('cfg', [write('cfg/a.txt', 'a\n'), write('z.txt', 'z1\n')], () => {
      p.put('cfg/a.txt', 'a\n');
      p.put('z.txt', 'z1\n');
    });
    await p.sim.turn('z', [write('z.txt', 'z2\n'), write('cfg/a.txt', 'a2\n')], () => {
      p.put('z.txt', 'z2\n');
      p.put('cfg/a.txt', 'a2\n');
    });
    rmSync(join(p.cwd, 'cfg'), { recursive: true });
    writeFileSync(join(p.cwd, 'cfg'), 'now a file\n');
    const r = p.cli(['restore', p.sim.file, t1.answer, '--force']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /cfg is a file now, where the node has a folder.*Nothing was written/);
    assert.equal(p.read('z.txt'), 'z2\n', 'nothing written');
    assert.equal(p.read('cfg'), 'now a file\n');
  });

  it('a folder where the node has a file, taken with --force: refused in words, not "changed since the preview"', async () => {
    const p = project();
    const t1 = await p.sim.turn('g', [write('g.txt', 'g1\n'), write('z.txt', 'z1\n')], () => {
      p.put('g.txt', 'g1\n');
      p.put('z.txt', 'z1\n');
    });
    await p.sim.turn('g 2', [write('g.txt', 'g2\n'), write('z.txt', 'z2\n')], () => {
      p.put('g.txt', 'g2\n');
      p.put('z.txt', 'z2\n');
    });
    rmSync(join(p.cwd, 'g.txt'));
    p.put('g.txt/inner', 'mine\n');
    const sc = await p.code();
    const plan = await planCode(sc, t1.answer);
    assert.equal(plan.items.find((i) => i.key === 'g.txt')?.reason, 'a folder is there now');
    await assert.rejects(
      writeCode(sc, plan, { force: true }),
      (e: Error) =>
        e instanceof RestoreRefusedError && /g\.txt: a folder is there now\. Nothing was written/.test(e.message),
    );
    assert.equal(p.read('z.txt'), 'z2\n', 'nothing written');
    assert.equal(p.read('g.txt/inner'), 'mine\n');
  });

  it('a write that fails half way is put back, the journal says failed, and the next restore is not blocked', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n'), write('b.txt', 'b1\n'), write('c.txt', 'c1\n')], () => {
      p.put('a.txt', 'a1\n');
      p.put('b.txt', 'b1\n');
      p.put('c.txt', 'c1\n');
    });
    await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n'), write('c.txt', 'c2\n')], () => {
      p.put('a.txt', 'a2\n');
      p.put('b.txt', 'b2\n');
      p.put('c.txt', 'c2\n');
    });
    const sc = await p.code();
    const plan = await planCode(sc, t1.answer);
    // After the checks, b.txt's write fails: a folder with a file in it sits where its temp file goes.
    let planted = '';
    onRestoreStep((step, journalId) => {
      if (step !== 'journal-written') return;
      planted = join(
        p.cwd,
        `.${createHash('sha1').update('b.txt').digest('hex').slice(0, 12)}.pi-tree-${journalId.slice(-8)}.tmp`,
      );
      mkdirSync(planted);
      writeFileSync(join(planted, 'inside'), 'x');
    });
    try {
      await assert.rejects(
        writeCode(sc, plan, {}),
        (e: Error) => e instanceof RestoreRefusedError && /the restore stopped: .*put back/.test(e.message),
      );
    } finally {
      onRestoreStep(undefined);
    }
    assert.ok(planted, 'the failure was planted');
    assert.deepEqual(
      [p.read('a.txt'), p.read('b.txt'), p.read('c.txt')],
      ['a2\n', 'b2\n', 'c2\n'],
      'what was written is put back',
    );
    rmSync(planted, { recursive: true });
    assert.deepEqual(
      readdirSync(p.cwd).filter((n) => n.includes('.pi-tree-')),
      [],
      'no temp file left',
    );
    const [j] = journals(projectStore(p.agentDir, p.cwd).restoresDir);
    assert.equal(j.state, 'failed');
    const r = p.cli(['restore', p.sim.file, t1.answer]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual([p.read('a.txt'), p.read('b.txt'), p.read('c.txt')], ['a1\n', 'b1\n', 'c1\n']);
  });

  it("an interrupted restore of another session finishes its files, but moves only its own session's conversation", async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    await p.sim.turn('two', [write('a.txt', 'a2\n')], () => p.put('a.txt', 'a2\n'));
    // a clone of the session, beside it (its own id, its parent named)
    const lines = readFileSync(p.sim.file, 'utf8').split('\n').filter(Boolean);
    const header = { ...JSON.parse(lines[0]), id: '019b8f3a-0000-7000-8000-0000000b0b0b', parentSession: p.sim.file };
    const other = join(p.sim.file, '..', '2026-01-05T11-00-00-000Z_019b8f3a-0000-7000-8000-0000000b0b0b.jsonl');
    writeFileSync(other, [JSON.stringify(header), ...lines.slice(1)].join('\n') + '\n');
    const leafLines = (f: string) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"leaf"')).length;
    const kill = spawnSync(
      process.execPath,
      ['--import', 'tsx', KILLER, p.sim.file, p.agentDir, t1.answer, 'files-done', '1', '--conversation'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(kill.signal, 'SIGKILL', kill.stderr);
    assert.equal(p.read('a.txt'), 'a1\n', 'the files were written before the kill');
    // the other session's restore: finishes the files, appends no leaf line to itself
    const r = p.cli(['restore', other, t1.answer, '--dry-run']);
    assert.equal(r.status, 0, r.stderr);
    const w = p.cli(['restore', other, t1.answer]);
    assert.equal(w.status, 0, w.stderr);
    assert.equal(leafLines(other), 0, 'no leaf line in the other session');
    assert.equal(leafLines(p.sim.file), 0, 'not yet in the interrupted one either');
    // the interrupted session's own next restore finishes its conversation move, once
    const own = p.cli(['restore', p.sim.file, t1.answer]);
    assert.equal(own.status, 0, own.stderr);
    assert.equal(leafLines(p.sim.file), 1);
    assert.equal((await Session.open(p.sim.file)).leafId, t1.answer);
  });

  it('a crafted session: a file outside the folder, or a forged working folder, is written only with --allow-outside', async () => {
    const p = project();
    const secret = join(p.root, 'home-bashrc');
    writeFileSync(secret, 'alias ls=ls\n');
    const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
    await p.sim.turn(
      'outside',
      [{ name: 'edit', args: { path: secret, edits: [{ oldText: 'alias ls=ls', newText: 'alias ls=rm' }] } }],
      () => writeFileSync(secret, 'alias ls=rm\n'),
    );
    // the session moved out of pi's layout and run from elsewhere: its cwd is vouched by nothing
    const moved = join(p.root, 'downloads');
    mkdirSync(moved);
    const copy = join(moved, 'evil.jsonl');
    writeFileSync(copy, readFileSync(p.sim.file));
    const u = p.cli(['restore', copy, t1.answer, '--force'], { cwd: moved });
    assert.equal(u.status, 1);
    assert.match(u.stderr, /is not where pi keeps it nor where you run pi-tree; 1 file would be written there/);
    assert.equal(readFileSync(secret, 'utf8'), 'alias ls=rm\n');
    // in pi's layout: only the file outside the folder needs the flag
    const r = p.cli(['restore', p.sim.file, t1.answer], { cwd: moved });
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /1 file outside the session's working folder .* would be written: .*home-bashrc; nothing written \(--allow-outside writes them\)/,
    );
    assert.equal(readFileSync(secret, 'utf8'), 'alias ls=rm\n');
    const ok = p.cli(['restore', p.sim.file, t1.answer, '--allow-outside']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(readFileSync(secret, 'utf8'), 'alias ls=ls\n');
    // After the restore and after its undo, the file outside is known as the agent's (the step's line
    // holds it): the next plan writes it back (with the flag), it does not ask "cannot tell".
    const outsideAction = () => {
      const d = p.cli(['restore', p.sim.file, t1.answer, '--dry-run', '--json']);
      assert.equal(d.status, 0, d.stderr);
      return JSON.parse(d.stdout).items.find((i: { path: string }) => i.path === secret)?.action;
    };
    const undo = p.cli(['restore', p.sim.file, '--undo']);
    assert.equal(undo.status, 0, undo.stderr);
    assert.equal(readFileSync(secret, 'utf8'), 'alias ls=rm\n');
    assert.equal(outsideAction(), 'modify');
    const again = p.cli(['restore', p.sim.file, t1.answer, '--allow-outside']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(secret, 'utf8'), 'alias ls=ls\n');
  });

  it('a recreated file gets the private bits it had, else the umask’s mode', async () => {
    const p = project();
    const t1 = await p.sim.turn('one', [write('open.txt', 'o\n')], () => p.put('open.txt', 'o\n'));
    await p.sim.turn('rm', [{ name: 'bash', args: { command: 'rm open.txt' } }], () => rmSync(join(p.cwd, 'open.txt')));
    const r = spawnSync(
      'sh',
      ['-c', 'umask 077 && exec "$0" "$@"', process.execPath, CLI, 'restore', p.sim.file, t1.answer],
      {
        cwd: p.cwd,
        encoding: 'utf8',
        env: { ...process.env, PI_CODING_AGENT_DIR: p.agentDir },
      },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      statSync(join(p.cwd, 'open.txt')).mode & 0o777,
      0o600,
      'a new file as the umask makes it, never wider',
    );
    assert.ok(lstatSync(join(p.cwd, 'open.txt')).isFile());
  });

  it('a file only its owner could read comes back with those bits (the capture recorded them)', async () => {
    const p = project();
    const t1 = await p.sim.turn('secret', [write('secret.env', 'KEY=1\n')], () => {
      p.put('secret.env', 'KEY=1\n');
      chmodSync(join(p.cwd, 'secret.env'), 0o600);
    });
    await p.sim.turn('rm', [{ name: 'bash', args: { command: 'rm secret.env' } }], () =>
      rmSync(join(p.cwd, 'secret.env')),
    );
    const r = p.cli(['restore', p.sim.file, t1.answer]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(p.read('secret.env'), 'KEY=1\n');
    assert.equal(statSync(join(p.cwd, 'secret.env')).mode & 0o777, 0o600, 'not world-readable');
  });

  it("pi's own files inside the working folder are never in a restore's plan", async () => {
    const root = tempDir('pi-cp-own-');
    const cwd = join(root, 'home');
    const agentDir = join(cwd, '.pi', 'agent');
    mkdirSync(agentDir, { recursive: true });
    const sim = new SimPi(cwd, agentDir, { sessionDir: join(agentDir, 'sessions') });
    const t1 = await sim.turn('one', [write('a.txt', 'a1\n')], () => writeFileSync(join(cwd, 'a.txt'), 'a1\n'));
    await sim.turn('two', [write('a.txt', 'a2\n'), write('.pi/agent/auth.json', '{}\n')], () => {
      writeFileSync(join(cwd, 'a.txt'), 'a2\n');
      writeFileSync(join(agentDir, 'auth.json'), '{}\n');
    });
    const plan = await planCode(sessionCode(await Session.open(sim.file), { agentDir }), t1.answer);
    assert.deepEqual(
      plan.items.map((i) => i.key),
      ['a.txt'],
      'nothing under .pi/agent (the store, the sessions, auth.json)',
    );
  });

  it('pi-tree checkpoints says why a session in the home folder has none', async () => {
    const p = project();
    await p.sim.turn('one', [write('a.txt', 'a\n')], () => p.put('a.txt', 'a\n'));
    const r = spawnSync(process.execPath, [CLI, 'checkpoints', p.sim.file], {
      cwd: p.cwd,
      encoding: 'utf8',
      env: { ...process.env, PI_CODING_AGENT_DIR: p.agentDir, HOME: p.cwd },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /capture is off for this session: the working folder is your home folder.*piTree\.checkpoints\.allowLargeFolder/,
    );
  });

  it('a path the node lacks beyond a folder that is a link now: named in the plan, not a git error', async () => {
    const p = project();
    const t1 = await p.sim.turn('conf', [write('conf/app.txt', 'v1\n')], () => p.put('conf/app.txt', 'v1\n'));
    await p.sim.turn('conf 2', [write('conf/new.txt', 'new\n')], () => p.put('conf/new.txt', 'new\n'));
    const outside = join(p.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'app.txt'), 'not the project\n');
    rmSync(join(p.cwd, 'conf'), { recursive: true });
    symlinkSync(outside, join(p.cwd, 'conf'));
    // a turn after the change captures conf as the link
    await p.sim.turn('more', [write('x.txt', 'x\n')], () => p.put('x.txt', 'x\n'));
    const sc = await p.code();
    // git check-ignore refused the whole question ("beyond a symbolic link") and the plan failed
    const plan = await planCode(sc, t1.answer);
    const item = plan.items.find((i) => i.key === 'conf/new.txt')!;
    assert.equal(item.action, 'unrestorable');
    assert.match(item.reason!, /conf is a symbolic link now/);
    await writeCode(sc, plan, { force: true });
    assert.deepEqual(readdirSync(outside), ['app.txt'], 'nothing written or deleted through the link');
    assert.equal(readFileSync(join(outside, 'app.txt'), 'utf8'), 'not the project\n');
  });

  it('a file too large to capture is not restorable, never "absent at the node" (--force keeps it)', async () => {
    const root = tempDir('pi-cp-refuse-');
    const cwd = join(root, 'proj');
    const agentDir = join(root, 'agent');
    for (const d of [cwd, join(agentDir, 'pi-tree')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(agentDir, 'pi-tree', 'settings.json'), JSON.stringify({ checkpoints: { maxFileBytes: 1000 } }));
    const sim = new SimPi(cwd, agentDir, { sessionDir: join(root, 'sessions'), settings: { maxFileBytes: 1000 } });
    const big = 'y'.repeat(5000);
    const t1 = await sim.turn('one', [write('a.txt', 'a\n')], () => writeFileSync(join(cwd, 'a.txt'), 'a\n'));
    await sim.turn('big', [write('big.bin', big)], () => writeFileSync(join(cwd, 'big.bin'), big));
    // a later snapshot's line does not name big.bin: it did not change in that turn
    await sim.turn('two', [write('b.txt', 'b\n')], () => writeFileSync(join(cwd, 'b.txt'), 'b\n'));
    const sc = await sessionCode(await Session.open(sim.file), { agentDir });
    const plan = await planCode(sc, t1.answer);
    const item = plan.items.find((i) => i.key === 'big.bin')!;
    assert.equal(item.action, 'unrestorable', 'was a conflict, and --force deleted it');
    assert.match(item.reason!, /not captured \(larger than the size limit\)/);
    await writeCode(sc, plan, { force: true });
    assert.equal(readFileSync(join(cwd, 'big.bin'), 'utf8'), big, 'still there');
    assert.ok(!existsSync(join(cwd, 'b.txt')), 'the rest restored');
  });
});
