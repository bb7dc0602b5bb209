// pi's /tree rule for where the leaf goes, in one place (core), used by the tree panel and the CLI.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moveTarget } from '../../../src/core/session/moveTarget.js';
import { Session } from '../../../src/core/session/session.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

const text = () =>
  sessionText([
    user('u1', null, 'first'),
    assistant('a1', 'u1', 'answer'),
    user('u2', 'a1', 'second'),
    entry('custom_message', 'c1', 'u2', {
      customType: 'note',
      content: [
        { type: 'text', text: 'custom ' },
        { type: 'text', text: 'words' },
      ],
      display: true,
    }),
    assistant('a2', 'c1', 'more'),
  ]);

describe('moveTarget (pi navigateTree rule)', () => {
  it('user and custom messages: leaf on the parent (null at the root), text handed back; others: the entry itself', async () => {
    const s = await Session.open(tempFile(text()));
    assert.deepStrictEqual(await moveTarget(s, 'u2'), { leaf: 'a1', editorText: 'second' });
    assert.deepStrictEqual(await moveTarget(s, 'u1'), { leaf: null, editorText: 'first' });
    assert.deepStrictEqual(await moveTarget(s, 'c1'), { leaf: 'u2', editorText: 'custom words' });
    assert.deepStrictEqual(await moveTarget(s, 'a1'), { leaf: 'a1' });
    assert.deepStrictEqual(await moveTarget(s, null), { leaf: null });
    await assert.rejects(moveTarget(s, 'nope'), /Entry nope not found/);
  });
});
