// Checkpoints on a 100,000-file project (issue #32): the baseline and a turn's snapshots hold exactly
// the files git would (node_modules and the .gitignore's files left out), the 'after' line names exactly
// what the turn changed, and a restore of a turn that edited, made, deleted, re-moded and re-linked
// files puts them back byte for byte and mode for mode while every other file (the project's other
// ~100k, node_modules, ignored files, a file the user made since) keeps its inode, size and mtime.
// No timings here: the targets are in `npm run bench` (bench/checkpoints.ts).
import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { planCode, sessionCode, writeCode } from '../../../../src/core/checkpoints/index.js';
import { blobSha } from '../../../../src/core/checkpoints/code/codeState.js';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import type { SnapshotLine } from '../../../../src/core/checkpoints/store/manifestLines.js';
import { Session } from '../../../../src/core/session/session.js';
import { generateProject } from '../../../support/projectTree.js';
import { SimPi } from '../../../support/simPi.js';

const FILES = 100_000;

/** Every file and link under `dir` (relative path → what identifies it on disk), .git-less. */
function statAll(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else {
        const st = lstatSync(join(dir, r));
        out.set(r, `${st.ino}:${st.size}:${st.mtimeMs}:${st.mode}`);
      }
    }
  };
  walk('');
  return out;
}

/** Content and mode of `paths` (null: absent; a link: its target). */
function contents(dir: string, paths: readonly string[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const p of paths) {
    try {
      const st = lstatSync(join(dir, p));
      out.set(
        p,
        st.isSymbolicLink()
          ? `link:${readlinkSync(join(dir, p))}`
          : `${st.mode & 0o111 ? 'x' : '-'}:${blobSha(readFileSync(join(dir, p)))}`,
      );
    } catch {
      out.set(p, null);
    }
  }
  return out;
}

describe('checkpoints on a 100,000-file project', () => {
  // 100k files take minutes to delete on a loaded machine: rm runs on after the test process has ended
  // (an argument list, no shell), instead of tmp.ts's synchronous removal at exit.
  const root = mkdtempSync(join(tmpdir(), 'pi-cp-big-'));
  after(() => spawn('rm', ['-rf', root], { detached: true, stdio: 'ignore' }).unref());

  it('captures what git would and restores a turn exactly, touching nothing else', async () => {
    const cwd = join(root, 'proj');
    const agentDir = join(root, 'agent');
    const sessions = join(root, 'sessions');
    mkdirSync(agentDir);
    mkdirSync(sessions);
    const p = generateProject(cwd, { files: FILES, seed: 32, small: true, nodeModules: 2000 });
    assert.equal(p.files.length, FILES);
    // pi gives up on a snapshot after 20 s (capture off for the session); a loaded test machine may take
    // longer for the baseline of 100k files, and what is tested here is what is captured, not how fast.
    const sim = new SimPi(cwd, agentDir, { sessionDir: sessions, timeoutMs: 600_000 });

    // Turn 1: a write and an edit (the code after it is the restore's target).
    const src = p.files.filter((f) => f.endsWith('.ts'));
    const t1 = await sim.turn(
      'start a feature',
      [
        { name: 'write', args: { path: 'src/feature/new.ts', content: 'export const feature = 1;\n' } },
        { name: 'edit', args: { path: src[0], edits: [{ oldText: 'export', newText: 'export /* edited */' }] } },
      ],
      () => {
        mkdirSync(join(cwd, 'src', 'feature'));
        writeFileSync(join(cwd, 'src', 'feature', 'new.ts'), 'export const feature = 1;\n');
        writeFileSync(
          join(cwd, src[0]),
          readFileSync(join(cwd, src[0]), 'utf8').replace('export', 'export /* edited */'),
        );
      },
    );

    // Turn 2: a bash call that edits 300 files (some binary), deletes 30, makes 30 in new folders, makes
    // a script executable, turns a file into a link, and writes into node_modules and an ignored file.
    const edited = src.slice(1, 301);
    const binary = [...p.binary].slice(0, 20);
    const deleted = src.slice(301, 331);
    const made = Array.from({ length: 30 }, (_, i) => `gen/deep/er/${i % 3}/out${i}.ts`);
    const script = p.files.find(
      (f) => f.endsWith('.ts') && !edited.includes(f) && !deleted.includes(f) && f !== src[0],
    )!;
    const linked = src[400];
    const ignoredTouched = [
      p.ignored.find((f) => f.startsWith('node_modules/'))!,
      p.ignored.find((f) => f.startsWith('dist/'))!,
      '.env',
    ];
    const changed = [...edited, ...binary, ...deleted, ...made, script, linked];
    const atTarget = contents(cwd, [...changed, 'src/feature/new.ts', src[0]]);
    await sim.turn('regenerate', [{ name: 'bash', args: { command: 'npm run regenerate' } }], () => {
      for (const f of edited) writeFileSync(join(cwd, f), `${readFileSync(join(cwd, f), 'utf8')}// regenerated\n`);
      for (const f of binary)
        writeFileSync(join(cwd, f), Buffer.concat([readFileSync(join(cwd, f)), Buffer.from([0, 255, 1])]));
      for (const f of deleted) unlinkSync(join(cwd, f));
      for (const f of made) {
        mkdirSync(join(cwd, f, '..'), { recursive: true });
        writeFileSync(join(cwd, f), `export const made = '${f}';\n`);
      }
      chmodSync(join(cwd, script), 0o755);
      rmSync(join(cwd, linked));
      symlinkSync('../elsewhere.ts', join(cwd, linked));
      for (const f of ignoredTouched) writeFileSync(join(cwd, f), 'changed by the turn, never captured\n');
    });
    assert.equal(sim.notified.length, 0, sim.notified.join('\n'));

    // What was captured: git's view of the project, and the turn's change exactly.
    const session = await Session.open(sim.file);
    const cps = SessionCheckpoints.load(session, agentDir);
    const lines = cps.lines.filter((l): l is SnapshotLine => l.kind !== 'off');
    assert.deepEqual(
      lines.map((l) => l.kind),
      ['baseline', 'before', 'after', 'before', 'after'],
    );
    const baseline = await cps.store!.listTree(lines[0].tree);
    assert.equal(baseline.size, FILES, 'the baseline holds every project file');
    assert.ok(
      ![...baseline.keys()].some(
        (k) => k.startsWith('node_modules/') || k.startsWith('dist/') || k === '.env' || k.endsWith('.log'),
      ),
      'nothing ignored',
    );
    assert.deepEqual(
      [...(lines[4].changed ?? [])].sort(),
      [...changed].sort(),
      "the 'after' line names exactly what the turn changed",
    );
    assert.equal(lines[4].between, undefined);
    const afterTree = await cps.store!.lookup(lines[4].tree, [
      ...edited.slice(0, 5),
      ...binary.slice(0, 5),
      script,
      linked,
    ]);
    for (const [k, v] of afterTree) {
      const st = lstatSync(join(cwd, k));
      const bytes = st.isSymbolicLink() ? Buffer.from(readlinkSync(join(cwd, k))) : readFileSync(join(cwd, k));
      assert.equal(v.sha, blobSha(bytes), `${k} as on disk`);
      assert.equal(v.mode, st.isSymbolicLink() ? 0o120000 : st.mode & 0o100 ? 0o100755 : 0o100644, `${k}'s mode`);
    }

    // The user makes a file of their own; then the code goes back to turn 1's answer.
    writeFileSync(join(cwd, 'notes.txt'), 'my notes\n');
    const before = statAll(cwd);
    const sc = sessionCode(session, { agentDir });
    const plan = await planCode(sc, t1.answer);
    assert.equal(plan.items.length, changed.length);
    assert.deepEqual(
      plan.items.filter((i) => i.action === 'conflict' || i.action === 'unrestorable'),
      [],
    );
    const r = await writeCode(sc, plan, {});
    assert.equal(r.written.length, changed.length);
    assert.deepEqual(r.skipped, []);
    const after = statAll(cwd);

    assert.deepEqual(
      contents(cwd, [...atTarget.keys()]),
      atTarget,
      'each restored file byte for byte and mode for mode',
    );
    for (const f of ignoredTouched)
      assert.equal(readFileSync(join(cwd, f), 'utf8'), 'changed by the turn, never captured\n', `${f} left alone`);
    assert.equal(readFileSync(join(cwd, 'notes.txt'), 'utf8'), 'my notes\n');
    const touched = new Set(changed);
    for (const [k, v] of before) if (!touched.has(k)) assert.equal(after.get(k), v, `${k} untouched`);
    for (const k of after.keys()) assert.ok(before.has(k) || touched.has(k), `${k} appeared`);
    assert.ok(![...after.keys()].some((k) => k.includes('.pi-tree-')), 'no temp files left');
  });
});
