// The conflicts of an open restore preview carry a "!" badge (vscode mock): on the file and on its
// pi-tree-code: side, with why in the tooltip, and only while the choice is open.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ConflictMarks } from '../../../src/host/checkpoints/conflictMarks.js';
import { mock, Uri } from '../../support/vscode/api.js';

describe('conflict marks in the restore preview (vscode mock)', () => {
  beforeEach(() => mock.reset());

  it('marks the conflicting files while the choice is open, with why', () => {
    const marks = new ConflictMarks();
    const [provider] = mock.decorations;
    const fired: unknown[] = [];
    marks.onDidChangeFileDecorations((u) => fired.push(u));
    marks.mark([{ path: '/proj/a.txt', why: 'changed between turns, outside the agent' }]);
    const d = provider.provideFileDecoration(Uri.file('/proj/a.txt')) as { badge: string; tooltip: string };
    assert.deepEqual([d.badge, d.tooltip], ['!', 'Conflict: changed between turns, outside the agent']);
    const side = Uri.from({ scheme: 'pi-tree-code', path: '/proj/a.txt', query: 't=x&what=at+the+node' });
    assert.equal((provider.provideFileDecoration(side) as { badge: string }).badge, '!', 'the node side too');
    assert.equal(provider.provideFileDecoration(Uri.file('/proj/b.txt')), undefined, 'not a conflict');
    marks.clear();
    assert.equal(provider.provideFileDecoration(Uri.file('/proj/a.txt')), undefined, 'gone once decided');
    assert.equal(fired.length, 2, 'VS Code is told both times');
    marks.dispose();
    assert.equal(mock.decorations.length, 0);
  });
});
