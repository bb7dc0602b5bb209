// Restoring the code through the running pi 1.6.0 (the bridge's restoreCode / codeUndo): the files and
// pi's leaf move as one action (the files, then pi navigates, and the journal records where pi's leaf
// landed); pi's next turn works from the restored node on the restored files; an undo moves pi's leaf
// back; a preview's fingerprint that no longer holds and an unresolved conflict write nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeClient, BridgeError } from '../../src/core/piClient/client.js';
import { pendingJournals, planCode, sessionCode } from '../../src/core/checkpoints/index.js';
import { journals } from '../../src/core/checkpoints/restore/restoreJournal.js';
import { Session } from '../../src/core/session/session.js';
import { startCodingPi, treeBytes, type CodingPi } from '../support/codingPi.js';
import { fileEntries, waitForBridge } from './helpers.js';

type Rec = Record<string, any>;

describe('restoring the code through the running pi', () => {
  let cp: CodingPi;
  let client: BridgeClient;
  let userGit: Map<string, string>;
  const ids: Record<string, string> = {};
  const work = (p: string) => join(cp.pe.workDir, p);
  const read = (p: string) => readFileSync(work(p), 'utf8');
  const answers = () =>
    (fileEntries(cp.file) as Rec[]).filter(
      (e) => e.message?.role === 'assistant' && e.message.content.some((c: Rec) => c.type === 'text'),
    );
  const code = async () => sessionCode(await Session.open(cp.file), { agentDir: cp.pe.agentDir });
  const preview = async (target: string) => planCode(await code(), target);
  /** The restore's journal by id: what it says of the conversation's move. */
  const journalOf = async (id: string) => journals((await code()).restoresDir).find((j) => j.id === id);

  before(async () => {
    cp = await startCodingPi({ files: { 'README.md': 'hello\n' } });
    userGit = treeBytes(work('.git'));
    await cp.turn('write the reader', [
      { name: 'write', arguments: { path: 'src/reader.ts', content: 'export const read = () => 1;\n' } },
    ]);
    ids.a1 = answers()[0].id;
    await cp.turn('make it two', [
      { name: 'edit', arguments: { path: 'src/reader.ts', edits: [{ oldText: '1', newText: '2' }] } },
    ]);
    await cp.turn('add files', [{ name: 'bash', arguments: { command: 'echo a > a.txt && echo b > b.txt' } }]);
    ids.a3 = answers()[2].id;
    const info = await waitForBridge(cp.file, cp.pe.env, cp.pi);
    client = await BridgeClient.connect(info.record);
  });
  after(async () => {
    client?.close();
    await cp?.stop();
  });

  it('a stale preview writes nothing', async () => {
    const plan = await preview(ids.a1);
    writeFileSync(work('a.txt'), 'a, changed after the preview\n');
    await assert.rejects(
      client.request('restoreCode', {
        targetId: ids.a1,
        conversation: true,
        fingerprint: plan.fingerprint,
        waitMs: 5000,
      }),
      (e: BridgeError) => e.code === 'stale' || e.code === 'bad-args',
    );
    assert.equal(read('src/reader.ts'), 'export const read = () => 2;\n');
    writeFileSync(work('a.txt'), 'a\n');
  });

  it('code and conversation move as one; pi continues there on the restored files', async () => {
    const plan = await preview(ids.a1);
    assert.deepEqual(plan.items.map((i) => [i.key, i.action]).sort(), [
      ['a.txt', 'delete'],
      ['b.txt', 'delete'],
      ['src/reader.ts', 'modify'],
    ]);
    const from = await cp.pi.leaf();
    const r = await client.request('restoreCode', {
      targetId: ids.a1,
      conversation: true,
      fingerprint: plan.fingerprint,
      waitMs: 5000,
    });
    assert.equal(r.written.length, 3);
    assert.deepEqual(
      (await journalOf(r.journalId))?.leaf,
      { targetId: ids.a1, moved: true, fromId: from },
      'the journal: the move made, from where to where',
    );
    assert.deepEqual(pendingJournals(await code()), []);
    assert.equal(read('src/reader.ts'), 'export const read = () => 1;\n');
    assert.ok(!existsSync(work('a.txt')));
    assert.equal(await cp.pi.leaf(), ids.a1, "pi's leaf is at the node");
    await cp.turn('now three', [
      { name: 'edit', arguments: { path: 'src/reader.ts', edits: [{ oldText: '1', newText: '3' }] } },
    ]);
    assert.equal(read('src/reader.ts'), 'export const read = () => 3;\n', "pi's edit applied to the restored file");
    const user = (fileEntries(cp.file) as Rec[]).find(
      (e) => e.message?.role === 'user' && JSON.stringify(e.message.content).includes('now three'),
    )!;
    assert.equal(
      user.parentId === ids.a1 ||
        (fileEntries(cp.file) as Rec[]).find((e) => e.id === user.parentId)?.parentId === ids.a1,
      true,
      'the new turn hangs under the node',
    );
  });

  it("undo through pi names what changed since (pi's own edit), and writes nothing; an unresolved conflict writes nothing", async () => {
    const u = await client.request('codeUndo', { waitMs: 5000 });
    assert.deepEqual(u.conflicts, [work('src/reader.ts')], 'pi edited the file after the restore');
    assert.ok(!existsSync(work('a.txt')), 'nothing put back');
    writeFileSync(work('src/reader.ts'), 'mine\n');
    await assert.rejects(
      client.request('restoreCode', { targetId: ids.a3, waitMs: 5000 }),
      (e: BridgeError) => e.code === 'bad-args' && /src\/reader\.ts/.test(e.message),
    );
    assert.equal(read('src/reader.ts'), 'mine\n');
    const r = await client.request('restoreCode', {
      targetId: ids.a3,
      resolutions: { 'src/reader.ts': 'mine' },
      waitMs: 5000,
    });
    assert.ok(r.written.some((p) => p.endsWith('a.txt')));
    assert.equal(read('src/reader.ts'), 'mine\n', 'kept: the user chose their own');
    assert.deepEqual(treeBytes(work('.git')), userGit);
  });

  it('pi-tree restore goes through the running pi (its output says so, once) and moves pi with the code', () => {
    const cli = (...a: string[]) =>
      spawnSync(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), ...a], {
        cwd: cp.pe.workDir,
        encoding: 'utf8',
        env: { ...cp.pe.env },
      });
    const r = cli('restore', cp.file, ids.a1, '--conversation', '--force');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, / through pi \d+, and moved the conversation there\n$/);
    assert.doesNotMatch(r.stderr, /via pi/, 'said in the output, not again on stderr');
    assert.equal(read('src/reader.ts'), 'export const read = () => 1;\n');
    // undo and redo through pi print JSON when asked, in every path
    const u = cli('restore', cp.file, '--undo', '--json');
    assert.equal(u.status, 0, u.stderr);
    const undone = JSON.parse(u.stdout);
    assert.ok(undone.undone && undone.written.length && undone.viaPi > 0, u.stdout);
    const again = cli('restore', cp.file, '--redo', '--json');
    assert.equal(again.status, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).viaPi, undone.viaPi);
    assert.equal(read('src/reader.ts'), 'export const read = () => 1;\n');
  });

  it("undo through pi moves pi's leaf back too, also after a move to a user message (pi puts the leaf on its parent)", async () => {
    const from = await cp.pi.leaf();
    const user = (fileEntries(cp.file) as Rec[]).find(
      (e) => e.message?.role === 'user' && JSON.stringify(e.message.content).includes('make it two'),
    )!;
    const r = await client.request('restoreCode', { targetId: user.id, conversation: true, force: true, waitMs: 5000 });
    assert.equal(r.leafId, user.parentId, "pi's rule: the leaf on the message's parent");
    assert.equal(
      (await journalOf(r.journalId))?.leaf?.targetId,
      user.parentId,
      "the journal records where pi's leaf landed, not the message",
    );
    const u = await client.request('codeUndo', { waitMs: 5000 });
    assert.deepEqual(u.conflicts, []);
    assert.equal(u.leafMoved, true);
    assert.equal(await cp.pi.leaf(), from, "pi's leaf is back where it was");
  });
  it('a plan made while the user reads the preview is written without planning again; a file changed since writes nothing', async () => {
    let target = ids.a1;
    if (!(await preview(target)).items.length) target = ids.a3;
    const ahead = await client.request('planRestore', { targetId: target });
    const mine = await preview(target);
    assert.ok(mine.items.length, 'the restore has files to write');
    assert.equal(ahead.fingerprint, mine.fingerprint, "pi's plan is the one the preview shows");
    const r = await client.request('restoreCode', {
      targetId: target,
      fingerprint: ahead.fingerprint,
      force: true,
      waitMs: 5000,
    });
    assert.ok(r.written.length);
    assert.ok('planned before' in (r.ms ?? {}) && !('plan' in (r.ms ?? {})), JSON.stringify(r.ms));
    await client.request('codeUndo', { force: true, waitMs: 5000 });

    const again = await client.request('planRestore', { targetId: target });
    const item = (await preview(target)).items.find((i) => existsSync(i.path))!;
    writeFileSync(item.path, 'changed after the preview\n');
    await assert.rejects(
      client.request('restoreCode', { targetId: target, fingerprint: again.fingerprint, force: true, waitMs: 5000 }),
      (e: BridgeError) => e.code === 'stale',
    );
    assert.equal(readFileSync(item.path, 'utf8'), 'changed after the preview\n', 'nothing written');
  });
});

describe('pi-tree restore through pi names what it cannot restore', () => {
  let cp: CodingPi;
  after(() => cp?.stop());

  it('a path beyond a folder that is a link now: named in the output and in --json, as without pi', async () => {
    cp = await startCodingPi({ files: { 'README.md': 'hello\n' } });
    const w = cp.pe.workDir;
    await cp.turn('conf', [{ name: 'write', arguments: { path: 'conf/app.txt', content: 'v1\n' } }]);
    const t1 = (fileEntries(cp.file) as Rec[]).filter((e) => e.message?.role === 'assistant').at(-1)!.id;
    await cp.turn('more', [{ name: 'write', arguments: { path: 'conf/new.txt', content: 'new\n' } }]);
    const outside = join(w, '..', 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'app.txt'), 'not the project\n');
    rmSync(join(w, 'conf'), { recursive: true });
    symlinkSync(outside, join(w, 'conf'));
    await waitForBridge(cp.file, cp.pe.env, cp.pi);
    const cli = (...a: string[]) =>
      spawnSync(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), ...a], {
        cwd: w,
        encoding: 'utf8',
        env: { ...cp.pe.env },
      });
    const j = cli('restore', cp.file, t1, '--force', '--json');
    assert.equal(j.status, 0, j.stderr);
    assert.deepEqual(JSON.parse(j.stdout).unrestorable, [join(w, 'conf', 'new.txt')]);
    assert.equal(cli('restore', cp.file, '--undo').status, 0);
    const r = cli('restore', cp.file, t1, '--force');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, / through pi \d+\n {2}not restorable: conf\/new\.txt \(conf is a symbolic link now/);
    assert.deepEqual(readdirSync(outside), ['app.txt'], 'nothing written through the link');
  });
});
