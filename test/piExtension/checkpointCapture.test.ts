// Checkpoint capture inside the real pi 1.6.0 (the bridge loaded, a loopback model making write, edit
// and bash calls): a snapshot before each turn that changes files and one after it, keyed by the
// session's entries; the user's own repository byte-identical; ignored files and heavy folders left out;
// pi's own files (its agent dir with pi-tree's store, its session file) left out when they lie inside the
// working folder, while pi writes them during the turns.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SnapshotLine } from '../../src/core/checkpoints/store/manifestLines.js';
import { CheckpointStore } from '../../src/core/checkpoints/store/store.js';
import { DEFAULT_SETTINGS } from '../../src/core/checkpoints/store/storePaths.js';
import { startCodingPi, treeBytes, type CodingPi } from '../support/codingPi.js';
import { fileEntries } from './helpers.js';

type Rec = Record<string, any>;

describe('checkpoint capture in a running pi', () => {
  let cp: CodingPi;
  let store: CheckpointStore;
  let userGit: Map<string, string>;
  let sessionId: string;

  before(async () => {
    cp = await startCodingPi({
      files: { 'README.md': 'hello\n', '.gitignore': 'secret.txt\n', 'secret.txt': 'mine\n' },
    });
    mkdirSync(join(cp.pe.workDir, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(cp.pe.workDir, 'node_modules', 'dep', 'index.js'), 'x');
    userGit = treeBytes(join(cp.pe.workDir, '.git'));
  });
  after(() => cp?.stop());

  const snapshots = (): SnapshotLine[] => store.manifest(sessionId).filter((l): l is SnapshotLine => l.kind !== 'off');

  it('snapshots before and after each turn that writes, keyed by its entries', async () => {
    await cp.turn('write the reader', [
      { name: 'write', arguments: { path: 'src/reader.ts', content: 'export const read = () => 1;\n' } },
    ]);
    sessionId = JSON.parse(readFileSync(cp.file, 'utf8').split('\n')[0]).id;
    store = CheckpointStore.existing(cp.pe.agentDir, cp.pe.workDir, DEFAULT_SETTINGS)!;
    assert.ok(store, 'the store exists under the agent dir');
    await cp.pi.until(() => snapshots().some((l) => l.kind === 'after'), 'the after snapshot of turn 1');
    const entries = fileEntries(cp.file) as Rec[];
    const user = entries.find((e) => e.message?.role === 'user')!;
    const assistant = entries.find(
      (e) => e.message?.role === 'assistant' && e.message.content.some((c: Rec) => c.type === 'toolCall'),
    )!;
    const result = entries.find((e) => e.message?.role === 'toolResult')!;
    const lines = snapshots();
    assert.deepEqual(
      lines.map((l) => l.kind),
      ['baseline', 'before', 'after'],
    );
    assert.deepEqual(lines[1].entries, [user.id], 'before: keyed by the entry the assistant message hangs under');
    assert.deepEqual(lines[2].entries, [assistant.id, result.id], 'after: the assistant message and its tool results');
    assert.deepEqual(lines[2].changed, ['src/reader.ts']);
    const files = await store.listTree(lines[2].tree);
    assert.deepEqual(
      [...files.keys()].sort(),
      ['.gitignore', 'README.md', 'src/reader.ts'],
      'ignored files and node_modules left out; the .git of the user not in it',
    );
    const before = await store.listTree(lines[1].tree);
    assert.ok(!before.has('src/reader.ts'), 'before the write, no reader');
  });

  it('edit and bash turns: each changed path listed; the user edit between turns recorded as such', async () => {
    writeFileSync(join(cp.pe.workDir, 'README.md'), 'hello, edited by the user\n');
    await cp.turn('make it two', [
      { name: 'edit', arguments: { path: 'src/reader.ts', edits: [{ oldText: '1', newText: '2' }] } },
    ]);
    await cp.turn('add files', [{ name: 'bash', arguments: { command: 'echo a > a.txt && echo b > b.txt' } }]);
    await cp.pi.until(() => snapshots().filter((l) => l.kind === 'after').length >= 3, 'three after snapshots');
    const lines = snapshots();
    const afters = lines.filter((l) => l.kind === 'after');
    assert.deepEqual(afters[1].changed, ['src/reader.ts']);
    assert.deepEqual(afters[2].changed, ['a.txt', 'b.txt']);
    const befores = lines.filter((l) => l.kind === 'before');
    assert.deepEqual(befores[1].between, ['README.md'], 'the user edit made between turns');
    const blobs = await store.readBlobs([
      (await store.lookup(afters[1].tree, ['src/reader.ts'])).get('src/reader.ts')!.sha,
    ]);
    assert.equal([...blobs.values()][0].toString(), 'export const read = () => 2;\n');
  });

  it("never touches the user's repository", () => {
    assert.deepEqual(treeBytes(join(cp.pe.workDir, '.git')), userGit);
  });
});

describe("pi's own files inside the working folder", () => {
  let cp: CodingPi;
  after(() => cp?.stop());

  it('are never captured: the agent dir, the store in it and the session file stay out of every snapshot', async () => {
    cp = await startCodingPi({ inside: true, files: { 'README.md': 'hello\n' } });
    await cp.turn('write one', [
      { name: 'write', arguments: { path: 'src/one.ts', content: 'export const one = 1;\n' } },
    ]);
    await cp.turn('write two', [
      { name: 'write', arguments: { path: 'src/two.ts', content: 'export const two = 2;\n' } },
    ]);
    const sessionId = JSON.parse(readFileSync(cp.file, 'utf8').split('\n')[0]).id;
    const store = CheckpointStore.existing(cp.pe.agentDir, cp.pe.workDir, DEFAULT_SETTINGS)!;
    const snapshots = () => store.manifest(sessionId).filter((l): l is SnapshotLine => l.kind !== 'off');
    await cp.pi.until(() => snapshots().filter((l) => l.kind === 'after').length >= 2, 'two after snapshots');
    const lines = snapshots();
    assert.deepEqual(
      lines.filter((l) => l.kind === 'after').map((l) => l.changed),
      [['src/one.ts'], ['src/two.ts']],
      "the session file pi appended to is not among the turns' changes",
    );
    for (const l of lines)
      assert.deepEqual(
        [...(await store.listTree(l.tree)).keys()].filter((k) => k.startsWith('.pi/') || k.startsWith('.sessions/')),
        [],
      );
    assert.deepEqual([...(await store.listTree(lines.at(-1)!.tree)).keys()].sort(), [
      'README.md',
      'src/one.ts',
      'src/two.ts',
    ]);
  });
});
