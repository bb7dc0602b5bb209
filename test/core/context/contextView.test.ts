// The context listing (listContext, the panel's context view) on entries nested past JSON.stringify's
// stack: every message with pi's token estimate (the nested call counted as JSON.stringify would measure it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listContext } from '../../../src/core/context/contextView.js';
import { Session } from '../../../src/core/session/session.js';
import { deepObject, deepSession } from '../../support/deepSession.js';

describe('listContext', () => {
  for (const depth of [10_000, 200_000]) {
    it(`entries nested ${depth.toLocaleString('en-US')} levels deep (it overflowed the stack)`, async () => {
      const { text, ids } = deepSession(depth);
      const s = await Session.inMemory(text);
      const l = await listContext(s, ids.u2);
      assert.deepStrictEqual(
        l.messages.map((m) => m.role),
        ['user', 'assistant', 'toolResult', 'toolResult', 'custom', 'user'],
      );
      const args =
        `{"query":${deepObject(depth)}}`.length +
        `{"command":"ls","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`.length;
      assert.equal(l.messages[1].tokens, Math.ceil(('looking'.length + 'lookup'.length + 'bash'.length + args) / 4));
      assert.equal(l.model, 'test/[object]');
    });
  }
});
