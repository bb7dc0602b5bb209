// The entries a Session writes, in pi's shape: the keys pi writes, in its order, and the ids handed out
// leaf first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelEntry, moveEntries, nameEntry } from '../../../src/core/session/newEntries.js';

describe('newEntries', () => {
  it('a move is a leaf record under the target, then the branch summary with the leaf it came from', () => {
    let n = 0;
    const id = () => `id${++n}`;
    const plain = moveEntries('t', 'f', undefined, id);
    assert.deepEqual(Object.keys(plain.entries[0]), ['type', 'id', 'parentId', 'timestamp', 'targetId', 'fromId']);
    assert.equal(plain.entries.length, 1);
    assert.equal(plain.summaryId, undefined);
    const withSummary = moveEntries(null, null, { summary: 's' }, id);
    assert.deepEqual(
      withSummary.entries.map((e) => [e.type, e.id, e.parentId]),
      [
        ['leaf', 'id2', null],
        ['branch_summary', 'id3', null],
      ],
    );
    assert.equal(withSummary.leafRecordId, 'id2');
    assert.equal(withSummary.summaryId, 'id3');
    assert.equal((withSummary.entries[1] as { fromId: string }).fromId, 'root');
    assert.equal((withSummary.entries[1] as { fromHook: boolean }).fromHook, false);
  });

  it('a label without text clears (no label key); a name loses its newlines, as pi writes them', () => {
    assert.equal('label' in labelEntry('a', 'p', 't', undefined), false);
    assert.equal(labelEntry('a', 'p', 't', 'x').label, 'x');
    assert.equal(nameEntry('a', 'p', '  one\r\ntwo\n ').name, 'one two');
  });
});
