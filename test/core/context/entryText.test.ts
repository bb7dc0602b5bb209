// pi's one-line call text (formatToolCall) for arguments nested past JSON.stringify's stack: the text pi's
// tree-selector would show had JSON.stringify not thrown (its first 40 characters, then "...").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatToolCall } from '../../../src/core/context/entryText.js';
import { deepArray, deepObject } from '../../support/deepSession.js';

describe('formatToolCall', () => {
  it('arguments 10,000 and 200,000 levels deep', () => {
    for (const depth of [10_000, 200_000]) {
      assert.equal(
        formatToolCall('lookup', JSON.parse(`{"query":${deepObject(depth)}}`)),
        `[lookup: {"query":${'{"a":'.repeat(6)}{...]`,
      );
      assert.equal(
        formatToolCall('lookup', JSON.parse(`{"q":${deepArray(depth)}}`)),
        `[lookup: {"q":${'['.repeat(35)}...]`,
      );
      // the tools whose text reads named arguments only do not look at the rest
      assert.equal(formatToolCall('bash', JSON.parse(`{"command":"ls","x":${deepArray(depth)}}`)), '[bash: ls]');
    }
    assert.equal(formatToolCall('lookup', { q: [[1]] }), '[lookup: {"q":[[1]]}]');
  });
});
