// A restore killed at each of its steps (SIGKILL, in a child process, at a named step it reports first):
// what is on disk then is the journal and whole files (each old or new, never torn), and the next
// `pi-tree restore` finishes it: the folder ends exactly as an uninterrupted restore leaves it, and the
// conversation moves once. The project here is not a git repository (the store is pi-tree's own).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { journals } from '../../../../src/core/checkpoints/restore/restoreJournal.js';
import { projectStore } from '../../../../src/core/checkpoints/store/storePaths.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

const ROOT = join(__dirname, '..', '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const KILLER = join(ROOT, 'test', 'support', 'restoreKill.ts');

async function scenario() {
  const root = tempDir('pi-cp-crash-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(join(cwd, 'keep.txt'), 'user file\n');
  const sim = new SimPi(cwd, agentDir, { sessionDir: sessions });
  const t1 = await sim.turn(
    'three files',
    [
      { name: 'write', args: { path: 'a.txt', content: 'a1\n' } },
      { name: 'write', args: { path: 'b.txt', content: 'b1\n' } },
      { name: 'write', args: { path: 'c/c.txt', content: 'c1\n' } },
    ],
    () => {
      writeFileSync(join(cwd, 'a.txt'), 'a1\n');
      writeFileSync(join(cwd, 'b.txt'), 'b1\n');
      mkdirSync(join(cwd, 'c'));
      writeFileSync(join(cwd, 'c', 'c.txt'), 'c1\n');
    },
  );
  await sim.turn(
    'change them',
    [{ name: 'bash', args: { command: 'echo a2 > a.txt; echo b2 > b.txt; rm c/c.txt; echo d > d.txt' } }],
    () => {
      writeFileSync(join(cwd, 'a.txt'), 'a2\n');
      writeFileSync(join(cwd, 'b.txt'), 'b2\n');
      rmSync(join(cwd, 'c', 'c.txt'));
      writeFileSync(join(cwd, 'd.txt'), 'd\n');
    },
  );
  return { cwd, agentDir, sim, target: t1.answer };
}

const expected = { 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'c/c.txt': 'c1\n', 'keep.txt': 'user file\n' };
const files = (cwd: string) =>
  Object.fromEntries(
    ['a.txt', 'b.txt', 'c/c.txt', 'd.txt', 'keep.txt']
      .filter((f) => existsSync(join(cwd, f)))
      .map((f) => [f, readFileSync(join(cwd, f), 'utf8')]),
  );
const tempFiles = (cwd: string) =>
  (readdirSync(cwd, { recursive: true }) as string[]).filter((f) => f.includes('.pi-tree-'));
const leafRecords = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"leaf"')).length;

describe('a restore killed at each step is finished by the next run', () => {
  const steps: [string, number, boolean][] = [
    ['journal-written', 1, false],
    ['file-written', 1, false],
    ['file-written', 3, false],
    ['files-done', 1, true],
    ['leaf-due', 1, true],
    ['leaf-moved', 1, true],
    ['done', 1, true],
  ];
  for (const [step, nth, conversation] of steps) {
    it(`killed at ${step} #${nth}${conversation ? ' (with the conversation)' : ''}`, async () => {
      const s = await scenario();
      const before = files(s.cwd);
      const kill = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          KILLER,
          s.sim.file,
          s.agentDir,
          s.target,
          step,
          String(nth),
          ...(conversation ? ['--conversation'] : []),
        ],
        { encoding: 'utf8' },
      );
      assert.equal(kill.signal, 'SIGKILL', `the child was killed (stderr: ${kill.stderr})`);
      assert.match(kill.stderr, new RegExp(`killed at ${step}`));
      const mid = files(s.cwd);
      const changed = Object.keys({ ...before, ...mid }).filter(
        (k) => before[k as keyof typeof before] !== mid[k as keyof typeof mid],
      );
      if (step === 'journal-written') assert.deepEqual(changed, [], 'nothing written before the journal');
      if (step === 'file-written') assert.equal(changed.length, nth, `exactly ${nth} file(s) written when killed`);
      for (const [k, v] of Object.entries(mid))
        assert.ok(
          v === before[k as keyof typeof before] || v === expected[k as keyof typeof expected],
          `${k} is whole: old or new`,
        );
      const [pending] = journals(projectStore(s.agentDir, s.cwd).restoresDir);
      // (with the conversation the files are done before the leaf moves: the journal says its move is due)
      const leafDue = !!pending.leaf && !pending.leaf.moved;
      assert.equal(pending.state === 'done' && !leafDue, step === 'done', 'the journal says where it stopped');
      if (step === 'leaf-due' || step === 'leaf-moved')
        assert.ok(pending.state === 'done' && leafDue, 'files done, the conversation move due');
      const again = spawnSync(
        process.execPath,
        [CLI, 'restore', s.sim.file, s.target, ...(conversation ? ['--conversation'] : [])],
        {
          encoding: 'utf8',
          env: { ...process.env, PI_CODING_AGENT_DIR: s.agentDir },
        },
      );
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(files(s.cwd), expected);
      assert.deepEqual(tempFiles(s.cwd), [], 'no temp file of the killed run left in the folder');
      assert.ok(journals(projectStore(s.agentDir, s.cwd).restoresDir).every((j) => j.state === 'done'));
      if (conversation) assert.equal(leafRecords(s.sim.file), 1, 'the conversation moved once');
    });
  }
});
