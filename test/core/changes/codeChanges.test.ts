// Code changes from the tool calls pi records: edit arguments read as pi 1.6.0's edit tool reads them,
// write content, files named by bash commands, the changes along a path with failed calls marked, and
// what the session knew of a file before a write.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bashFiles } from '../../../src/core/changes/bashFiles.js';
import { changesOnPath, summarizeFiles } from '../../../src/core/changes/branchChanges.js';
import { applyEdits, changesOfEntry, editRegions, editsOf } from '../../../src/core/changes/codeChanges.js';
import { contentBefore, resolveToolPath } from '../../../src/core/changes/fileHistory.js';
import { Session } from '../../../src/core/session/session.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { loadPi } from '../../support/pi.js';
import { tempDir } from '../../support/tmp.js';

describe('edit arguments as pi 1.6.0 prepares them', () => {
  it('edits[], a JSON string of edits, a single edit object, and the legacy top-level pair', () => {
    assert.deepEqual(editsOf({ path: 'a', edits: [{ oldText: 'x', newText: 'y' }] }), [{ oldText: 'x', newText: 'y' }]);
    assert.deepEqual(editsOf({ path: 'a', edits: JSON.stringify([{ oldText: 'x', newText: 'y' }]) }), [
      { oldText: 'x', newText: 'y' },
    ]);
    assert.deepEqual(editsOf({ path: 'a', edits: { oldText: 'x', newText: 'y' } }), [{ oldText: 'x', newText: 'y' }]);
    assert.deepEqual(editsOf({ path: 'a', oldText: 'o', newText: 'n' }), [{ oldText: 'o', newText: 'n' }]);
    assert.deepEqual(editsOf({ path: 'a', edits: [{ oldText: 'x', newText: 'y' }], oldText: 'o', newText: 'n' }), [
      { oldText: 'x', newText: 'y' },
      { oldText: 'o', newText: 'n' },
    ]);
    assert.deepEqual(editsOf({ path: 'a', edits: 'not json' }), []);
    assert.deepEqual(editsOf({ path: 'a', edits: [{ oldText: 1 }] }), []);
  });

  it("matches the argument names of pi's own edit tool schema", async () => {
    // pi's prepareArguments hook turns every accepted shape into `edits`; ours must read the same replacements.
    const { createEditToolDefinition } = await loadPi();
    const def = createEditToolDefinition('/tmp');
    const shapes = [
      { path: 'a', edits: [{ oldText: 'x', newText: 'y' }] },
      { path: 'a', edits: JSON.stringify([{ oldText: 'x', newText: 'y' }]) },
      { path: 'a', oldText: 'o', newText: 'n' },
    ];
    for (const args of shapes) {
      const prepared = def.prepareArguments(structuredClone(args));
      assert.deepEqual(editsOf(args), prepared.edits, JSON.stringify(args));
    }
  });

  it("applies replacements to known content as pi's edit tool changes the file", async () => {
    const { createEditToolDefinition } = await loadPi();
    const dir = tempDir('pi-edit-');
    const def = createEditToolDefinition(dir);
    const before = 'export const a = 1;\nexport const b = 2;\n\nfunction f() {\n  return a + b;\n}\n';
    const edits = [
      { oldText: 'const b = 2', newText: 'const b = 20' },
      { oldText: '  return a + b;\n', newText: '  // sum\n  return a + b;\n' },
    ];
    writeFileSync(join(dir, 'f.ts'), before);
    await def.execute('call-1', def.prepareArguments({ path: 'f.ts', edits }), undefined, undefined, { cwd: dir });
    assert.equal(applyEdits(before, edits), readFileSync(join(dir, 'f.ts'), 'utf8'));
  });

  it('applies replacements to known content like pi (unique exact match, on LF text)', () => {
    assert.equal(applyEdits('a\r\nb\r\nc\r\n', [{ oldText: 'b\n', newText: 'B\n' }]), 'a\nB\nc\n');
    assert.equal(applyEdits('x x', [{ oldText: 'x', newText: 'y' }]), undefined, 'not unique');
    assert.equal(applyEdits('abc', [{ oldText: 'q', newText: 'y' }]), undefined, 'not found');
    assert.equal(
      applyEdits('one two three', [
        { oldText: 'three', newText: '3' },
        { oldText: 'one', newText: '1' },
      ]),
      '1 two 3',
    );
  });

  it('shows each region of a multi-replacement edit under the same marker on both sides', () => {
    const [c] = changesOfEntry({
      type: 'message',
      id: 'a1',
      parentId: null,
      timestamp: '',
      message: {
        role: 'assistant',
        content: [
          {
            type: 'toolCall',
            id: 'c',
            name: 'edit',
            arguments: {
              path: 'f',
              edits: [
                { oldText: 'a', newText: 'b' },
                { oldText: 'c\n', newText: 'd\n' },
              ],
            },
          },
        ],
      },
    });
    const r = editRegions(c);
    assert.equal(r.before, '⋯ replacement 1 of 2 ⋯\na\n\n⋯ replacement 2 of 2 ⋯\nc\n');
    assert.equal(r.after, '⋯ replacement 1 of 2 ⋯\nb\n\n⋯ replacement 2 of 2 ⋯\nd\n');
  });
});

describe('files a bash command names', () => {
  const f = (cmd: string) => bashFiles(cmd).map((x) => `${x.op} ${x.path}`);
  it('redirections, and the file arguments of file-changing commands', () => {
    assert.deepEqual(f('echo hi > out.txt'), ['write out.txt']);
    assert.deepEqual(f('npm test 2>&1 | tee log/test.log >> all.log'), ['write all.log', 'write log/test.log']);
    assert.deepEqual(f('cmd >x.txt 2>/dev/null'), ['write x.txt']);
    assert.deepEqual(f('rm -rf build dist && mv a.ts b.ts'), [
      'delete build',
      'delete dist',
      'move a.ts',
      'write b.ts',
    ]);
    assert.deepEqual(f("sed -i 's/a/b/' src/x.ts src/y.ts"), ['write src/x.ts', 'write src/y.ts']);
    assert.deepEqual(f("sed -i -e 's/a/b/' src/x.ts"), ['write src/x.ts']);
    assert.deepEqual(f('cp template.md "docs/my file.md"'), ['write docs/my file.md']);
    assert.deepEqual(f('git mv old.ts new.ts; git rm gone.ts; git checkout -- keep.ts'), [
      'move old.ts',
      'write new.ts',
      'delete gone.ts',
      'write keep.ts',
    ]);
    assert.deepEqual(f('sudo touch /etc/x'), ['write /etc/x']);
    assert.deepEqual(f('dd if=/dev/zero of=disk.img bs=1M count=1'), ['write disk.img']);
  });
  it('reads nothing as a file that a shell would compute, and skips here-document bodies', () => {
    assert.deepEqual(f('ls -la; cat README.md; grep -r foo src'), []);
    assert.deepEqual(f('echo $X > "$OUT"; rm *.tmp'), []);
    assert.deepEqual(f("cat > notes.md <<'EOF'\nrm -rf everything\n> not a redirect\nEOF\ntouch after.txt"), [
      'write notes.md',
      'write after.txt',
    ]);
    assert.deepEqual(f('echo "unbalanced > x'), []);
  });
});

describe('changes along a path', () => {
  it('per entry, with failed calls marked, and per file on the branch', async () => {
    const b = new SessionBuilder();
    b.user('go');
    b.assistant({ calls: [{ name: 'write', args: { path: 'src/a.ts', content: 'one\ntwo\n' }, id: 'w1' }] });
    b.toolResult('w1', 'write', 'Successfully wrote');
    b.assistant({
      calls: [
        { name: 'edit', args: { path: 'src/a.ts', edits: [{ oldText: 'two', newText: 'zwei\ndrei' }] }, id: 'e1' },
        { name: 'edit', args: { path: 'src/b.ts', oldText: 'q', newText: 'r' }, id: 'e2' },
        { name: 'bash', args: { command: 'rm -f tmp.log' }, id: 'b1' },
        { name: 'read', args: { path: 'src/c.ts' }, id: 'r1' },
      ],
    });
    b.toolResult('e1', 'edit', 'ok');
    b.message({
      role: 'toolResult',
      toolCallId: 'e2',
      toolName: 'edit',
      content: [{ type: 'text', text: 'Could not find' }],
      isError: true,
    });
    b.toolResult('b1', 'bash', '');
    const leaf = b.toolResult('r1', 'read', 'c');
    const s = await Session.open(b.write());
    const changes = await changesOnPath(s, s.index.branch(leaf));
    assert.deepEqual(
      changes.map((e) =>
        e.changes.map(
          (c) => `${c.tool} ${c.path} +${c.added} -${c.removed}${c.failed ? ' failed' : ''}${c.op ? ` ${c.op}` : ''}`,
        ),
      ),
      [['write src/a.ts +2 -0'], ['edit src/a.ts +2 -1', 'edit src/b.ts +1 -1 failed', 'bash tmp.log +0 -0 delete']],
    );
    assert.deepEqual(
      summarizeFiles(changes).map((f) => [f.path, f.changes, f.failed, f.tools.join('+'), f.added, f.removed]),
      [
        ['src/a.ts', 2, 0, 'write+edit', 4, 1],
        ['src/b.ts', 1, 1, 'edit', 0, 0],
        ['tmp.log', 1, 0, 'bash', 0, 0],
      ],
    );
  });
});

describe('what the session knew of a file before a write', () => {
  it('the last write or whole read on the path, with the edits since applied; failed edits skipped', async () => {
    const b = new SessionBuilder({ cwd: '/proj' });
    b.user('go');
    b.toolTurn([{ name: 'read', args: { path: 'src/a.ts' }, id: 'r1' }], ['alpha\nbeta\n']);
    b.toolTurn(
      [{ name: 'edit', args: { path: '/proj/src/a.ts', edits: [{ oldText: 'beta', newText: 'BETA' }] }, id: 'e1' }],
      ['ok'],
    );
    b.assistant({ calls: [{ name: 'edit', args: { path: 'src/a.ts', oldText: 'alpha', newText: 'nope' }, id: 'e2' }] });
    b.message({
      role: 'toolResult',
      toolCallId: 'e2',
      toolName: 'edit',
      content: [{ type: 'text', text: 'not found' }],
      isError: true,
    });
    b.toolTurn([{ name: 'read', args: { path: 'src/other.ts', offset: 5 }, id: 'r2' }], ['zzz']);
    const w = b.assistant({ calls: [{ name: 'write', args: { path: './src/a.ts', content: 'gamma\n' }, id: 'w1' }] });
    const s = await Session.open(b.write());
    const path = s.index.branch(w);
    const known = await contentBefore(s, path, path.length - 1, './src/a.ts');
    assert.deepEqual(known && { text: known.text, how: known.how, edits: known.edits }, {
      text: 'alpha\nBETA\n',
      how: 'read',
      edits: 1,
    });
    // a partial read is not the file: nothing known
    assert.equal(await contentBefore(s, path, path.length - 1, 'src/other.ts'), undefined);
    assert.equal(resolveToolPath('@~/x', '/c', '/home/u'), '/home/u/x');
  });
});
