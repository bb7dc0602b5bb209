// `pi-tree files`, `pi-tree export` and `pi-tree compare --with` as users run them (the built CLI, a
// demo session in pi's layout): the changes per entry on a path, Markdown that cannot drive a terminal,
// and a fork compared with the session it came from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { SessionBuilder } from '../support/sessionBuilder.js';
import { tempDir } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

describe('pi-tree files / export / compare --with', () => {
  const root = tempDir('pi-cli-compare-');
  const demo = writeDemoSessions(join(root, 'agent'), join(root, 'ws'));
  const file = demo.branched.file!;

  it('files lists the edits on the path to an entry, and none before them', () => {
    const r = run('files', file, demo.ids.done, '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.entries.length, 1);
    assert.deepEqual(out.entries[0].changes, [
      { tool: 'edit', path: 'src/core/reader.ts', callId: out.entries[0].changes[0].callId, added: 1, removed: 1 },
    ]);
    assert.deepEqual(
      out.files.map((f: { path: string; changes: number }) => [f.path, f.changes]),
      [['src/core/reader.ts', 1]],
    );
    const before = run('files', file, demo.ids.plan);
    assert.equal(before.stdout, 'No file changes on this branch.\n');
    assert.equal(run('files', file, 'nope').status, 1);
  });

  it('files on a session without entries: no changes (it asked for an id, as a usage error)', () => {
    const empty = join(tempDir('pi-cli-files-'), 'empty.jsonl');
    writeFileSync(
      empty,
      `${JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/x' })}\n`,
    );
    const text = run('files', empty);
    assert.equal(text.status, 0, text.stderr);
    assert.equal(text.stdout, 'No file changes on this branch.\n');
    const json = run('files', empty, '--json');
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { id: null, entries: [], files: [] });
  });

  it('export prints the branch as Markdown, control characters made visible', () => {
    const b = new SessionBuilder();
    b.user('evil \u001b]52;c;aGk=\u0007 text\r\nnext line');
    const leaf = b.assistant({ text: 'fine' });
    const r = run('export', b.write(), leaf);
    assert.equal(r.status, 0, r.stderr);
    // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
    assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(r.stdout), 'no raw control characters');
    assert.match(r.stdout, /evil \\x1b\]52;c;aGk=\\x07 text\nnext line/);
    assert.match(r.stdout, /## Assistant \(test-model\)/);
  });

  it('compare --with: a fork against the session it came from', () => {
    const fork = demo.fork;
    const r = run('compare', file, demo.branched.leafId!, fork.leafId!, '--with', fork.file!, '--json');
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.ancestorId, demo.ids.plan, 'the fork copied the path up to the plan');
    // the label pi re-emits for the copied path, then the fork's own four entries
    assert.equal(out.b.ids.length, 5);
    assert.equal(out.b.totals.userMessages, 1);
    assert.deepEqual(out.a.files, ['src/core/reader.ts']);
    assert.deepEqual(out.b.files, []);
    assert.equal(run('compare', file, demo.ids.plan).status, 2, 'usage error');
  });
});
