// Adopting a variant brings its file changes since the node into the user's folder with restore's
// rules: a file still as at the node is written, one already as the variant has it is left, one changed
// in the user's folder since the node (by the user, or a later turn) that the variant changed too is a
// conflict, refused and named unless forced; a file only the main line changed is never touched.
// --dry-run writes nothing, the undo puts every byte back, and bad input writes nothing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Capture } from '../../../src/core/checkpoints/capture/capture.js';
import { DEFAULT_SETTINGS } from '../../../src/core/checkpoints/store/storePaths.js';
import { SessionCheckpoints } from '../../../src/core/checkpoints/store/manifests.js';
import { Session } from '../../../src/core/session/session.js';
import {
  adoptVariant,
  makeVariant,
  openVariant,
  planVariantAdopt,
  readRecord,
  undoVariantAdopt,
} from '../../../src/core/variants/index.js';
import { treeBytes } from '../../support/codingPi.js';
import { variantProject, write } from '../../support/variantProject.js';

/** A project at a node, a variant of it that changed files, and the main line gone on since. */
async function scenario() {
  const p = variantProject({
    'a.txt': 'a\n',
    'c.txt': 'c\n',
    'm.txt': 'm\n',
    'u.txt': 'u\n',
    'main.txt': 'main\n',
    'same.txt': 's\n',
  });
  const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
  const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
  const v = (f: string, text?: string) =>
    text === undefined ? unlinkSync(join(rec.folder, f)) : writeFileSync(join(rec.folder, f), text);
  // the variant's work (as its pi would do it, in its folder)
  v('a.txt', 'a by the variant\n');
  v('new.txt', 'new from the variant\n');
  v('c.txt');
  v('m.txt', 'm by the variant\n');
  v('u.txt', 'u by the variant\n');
  v('same.txt', 's2\n');
  // the main line goes on: pi changes main.txt and m.txt, the user edits u.txt and makes same.txt as the variant has it
  await p.sim.turn('main', [write('main.txt', 'main 2\n'), write('m.txt', 'm on the main line\n')], () => {
    p.put('main.txt', 'main 2\n');
    p.put('m.txt', 'm on the main line\n');
  });
  p.put('u.txt', 'u by the user\n');
  p.put('same.txt', 's2\n');
  return { ...p, rec, node };
}

const items = (plan: { items: { key: string; action: string }[] }) =>
  plan.items.map((i) => `${i.key}:${i.action}`).sort();

describe('adopting a variant', () => {
  it('plans only the variant’s changes: written, same, conflicts named; a main-line-only change left alone', async () => {
    const s = await scenario();
    const t = await openVariant(s.rec.sessionFile!, { agentDir: s.agentDir });
    const plan = await planVariantAdopt(t);
    assert.deepEqual(items(plan), [
      'a.txt:modify',
      'c.txt:delete',
      'm.txt:conflict',
      'new.txt:create',
      'u.txt:conflict',
    ]);
    assert.equal(plan.same, 1, 'same.txt is already as the variant has it');
    assert.match(plan.items.find((i) => i.key === 'u.txt')!.reason!, /changed in your folder since the node/);
    const sides = plan.sides.get('m.txt')!;
    assert.equal(
      sides.target.kind === 'file' && sides.target.bytes!.toString(),
      'm by the variant\n',
      'the preview has the variant’s bytes',
    );
    assert.equal(sides.base!.kind === 'file' && sides.base!.bytes!.toString(), 'm\n', 'and the node’s, the merge base');
    assert.equal(plan.targetId, t.variant.leafId);
  });

  it('the CLI: --dry-run writes nothing; conflicts refuse and name them; --force writes; --undo puts every byte back', async () => {
    const s = await scenario();
    const before = treeBytes(s.cwd);
    const dry = s.cli('adopt', s.rec.sessionFile!, '--dry-run', '--json');
    assert.equal(dry.status, 0, dry.stderr);
    const j = JSON.parse(dry.stdout);
    assert.deepEqual(j.counts, { create: 1, modify: 1, delete: 1, conflict: 2, unrestorable: 0 });
    assert.deepEqual(treeBytes(s.cwd), before, '--dry-run wrote nothing');
    const human = s.cli('adopt', s.rec.sessionFile!, '--dry-run');
    assert.match(human.stdout, /would change 3 file\(s\).*2 conflict/);

    const refused = s.cli('adopt', s.rec.sessionFile!);
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    assert.match(refused.stderr, /m\.txt, u\.txt; nothing written \(--force/);
    assert.deepEqual(treeBytes(s.cwd), before, 'a refused adopt wrote nothing');

    const forced = s.cli('adopt', s.rec.sessionFile!, '--force', '--json');
    assert.equal(forced.status, 0, forced.stderr);
    assert.deepEqual(
      JSON.parse(forced.stdout)
        .written.map((f: string) => f.slice(s.cwd.length + 1))
        .sort(),
      ['a.txt', 'c.txt', 'm.txt', 'new.txt', 'u.txt'],
    );
    assert.equal(s.read('a.txt'), 'a by the variant\n');
    assert.equal(s.read('new.txt'), 'new from the variant\n');
    assert.equal(existsSync(join(s.cwd, 'c.txt')), false);
    assert.equal(s.read('u.txt'), 'u by the variant\n');
    assert.equal(s.read('main.txt'), 'main 2\n', 'the main line’s change is left alone');
    assert.equal(readRecord(s.agentDir, s.rec.project, s.rec.id)!.state, 'adopted');

    const undo = s.cli('adopt', s.rec.sessionFile!, '--undo');
    assert.equal(undo.status, 0, undo.stderr);
    assert.match(undo.stdout, /Put back 5 file\(s\)/);
    assert.deepEqual(treeBytes(s.cwd), before, 'the undo put every byte and mode back');
    const again = s.cli('adopt', s.rec.sessionFile!, '--undo');
    assert.equal(again.status, 1);
    assert.match(again.stderr, /no adopt of this variant to undo/);
  });

  it('adopts cleanly without --force when nothing conflicts, and the source session’s own restore undo is not the adopt’s', async () => {
    const p = variantProject({ 'a.txt': 'a\n' });
    const node = await p.sim.turn('node', [write('b.txt', 'b\n')], () => p.put('b.txt', 'b\n'));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
    writeFileSync(join(rec.folder, 'a.txt'), 'a from the variant\n');
    const r = p.cli('adopt', rec.sessionFile!);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Adopted 1 file\(s\)/);
    assert.equal(p.read('a.txt'), 'a from the variant\n');
    const u = p.cli('restore', p.sim.file, '--undo');
    assert.equal(u.status, 1, 'the session’s restore undo does not see the adopt');
    assert.equal(p.read('a.txt'), 'a from the variant\n');
  });

  it('a file changed after the preview is not overwritten: nothing is written', async () => {
    const p = variantProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
    writeFileSync(join(rec.folder, 'a.txt'), 'a2\n');
    writeFileSync(join(rec.folder, 'b.txt'), 'b2\n');
    const t = await openVariant(rec.sessionFile!, { agentDir: p.agentDir });
    const plan = await planVariantAdopt(t);
    p.put('b.txt', 'b by the user, after the preview\n');
    await assert.rejects(adoptVariant(t, plan), /changed since the preview; nothing was written/);
    assert.equal(p.read('a.txt'), 'a\n');
    assert.equal(p.read('b.txt'), 'b by the user, after the preview\n');
  });

  it('a conflict resolved by merge keeps both sides’ lines (the node as the base)', async () => {
    const p = variantProject({ 'm.txt': 'one\ntwo\nthree\nfour\nfive\n' });
    const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
    writeFileSync(join(rec.folder, 'm.txt'), 'ONE\ntwo\nthree\nfour\nfive\n');
    p.put('m.txt', 'one\ntwo\nthree\nfour\nFIVE\n');
    const t = await openVariant(rec.sessionFile!, { agentDir: p.agentDir });
    const plan = await planVariantAdopt(t);
    assert.equal(plan.items[0].action, 'conflict');
    await adoptVariant(t, plan, { resolutions: new Map([['m.txt', 'merge']]) });
    assert.equal(p.read('m.txt'), 'ONE\ntwo\nthree\nfour\nFIVE\n');
    const u = await undoVariantAdopt(await openVariant(rec.sessionFile!, { agentDir: p.agentDir }));
    assert.deepEqual(u.conflicts, []);
    assert.equal(p.read('m.txt'), 'one\ntwo\nthree\nfour\nFIVE\n');
  });

  it('the variant’s own capture starts from its checkout (a stat pass, nothing between); with its folder gone, its latest snapshot is adopted', async () => {
    const p = variantProject({ 'a.txt': 'a\n' });
    const node = await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
    const rec = await makeVariant({ agentDir: p.agentDir, source: await p.session(), entryId: node.answer });
    // the bridge in the variant's pi, on its folder and session
    const capture = new Capture({
      agentDir: p.agentDir,
      cwd: rec.folder,
      sessionId: rec.id,
      settings: DEFAULT_SETTINGS,
      notify: (m) => assert.fail(m),
      watch: false,
    });
    capture.start(node.answer);
    await capture.flush();
    assert.equal(capture.off, undefined, 'capture runs in a variant’s folder');
    await capture.beforeTool('write', { path: 'a.txt' }, { id: 'v1', parentId: node.answer });
    writeFileSync(join(rec.folder, 'a.txt'), 'a by the variant\n');
    await capture.turnEnd('v1', []);
    await capture.close();
    const cps = SessionCheckpoints.load(await Session.open(rec.sessionFile!), p.agentDir);
    const [checkout, baseline, before, after] = cps.lines;
    assert.equal(checkout.kind === 'baseline' && checkout.tree, rec.code!.tree);
    assert.ok(
      baseline.kind === 'baseline' && !baseline.between,
      'its baseline found nothing changed since the checkout',
    );
    assert.equal(before.kind, 'before');
    assert.deepEqual(after.kind === 'after' && after.changed, ['a.txt']);
    rmSync(rec.folder, { recursive: true });
    const t = await openVariant(rec.sessionFile!, { agentDir: p.agentDir });
    const plan = await planVariantAdopt(t);
    assert.deepEqual(items(plan), ['a.txt:modify']);
    assert.match(plan.notes.join('\n'), /folder is gone: its latest snapshot/);
    await adoptVariant(t, plan);
    assert.equal(readFileSync(join(p.cwd, 'a.txt'), 'utf8'), 'a by the variant\n');
  });

  it('refuses what is not a variant, in one line, writing nothing', async () => {
    const p = variantProject({ 'a.txt': 'a\n' });
    await p.sim.turn('node', [write('n.txt', 'n\n')], () => p.put('n.txt', 'n\n'));
    const before = treeBytes(p.cwd);
    for (const args of [[p.sim.file], [join(p.root, 'missing.jsonl')], [p.sim.file, '--undo']]) {
      const r = p.cli('adopt', ...args);
      assert.equal(r.status, 1, r.stdout);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.match(p.cli('adopt', p.sim.file).stderr, /is not a variant pi-tree made/);
    assert.equal(p.cli('adopt').status, 2, 'usage');
    assert.equal(p.cli('adopt', p.sim.file, '--undo', '--dry-run').status, 2, 'usage');
    assert.deepEqual(treeBytes(p.cwd), before);
  });
});
