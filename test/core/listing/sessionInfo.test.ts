import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SessionInfoCache } from '../../../src/core/listing/sessionInfo.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

describe('session info (list rows)', () => {
  it('name, first message, message count, modified; incremental on growth; torn tail counted once complete', async () => {
    const file = tempFile(
      sessionText([
        entry('model_change', 'm', null, { provider: 'p', modelId: 'x' }),
        user('u1', 'm', 'hello there'),
        assistant('a1', 'u1', 'hi'),
      ]),
    );
    const cache = new SessionInfoCache();
    const i1 = (await cache.get(file))!;
    assert.equal(i1.firstMessage, 'hello there');
    assert.equal(i1.messageCount, 2);
    assert.equal(i1.name, undefined);
    const more = user('u2', 'a1', 'second');
    const line = JSON.stringify(more);
    appendFileSync(
      file,
      `${JSON.stringify(entry('session_info', 'n1', 'a1', { name: ' Named ' }))}\n${line.slice(0, 20)}`,
    );
    const i2 = (await cache.get(file))!;
    assert.equal(i2.name, 'Named');
    assert.equal(i2.messageCount, 2, 'a half-written line does not count');
    appendFileSync(file, `${line.slice(20)}\n`);
    const i3 = (await cache.get(file))!;
    assert.equal(i3.messageCount, 3);
    assert.equal(i3.modified.getTime(), (more.message as { timestamp: number }).timestamp);
    assert.equal(await cache.get(file), i3, 'unchanged file: cached object');
  });

  it('not a session: null; a rewritten (shorter) file is read again', async () => {
    const cache = new SessionInfoCache();
    assert.equal(await cache.get(tempFile('garbage\n{"type":"message"}\n')), null);
    assert.equal(await cache.get('/no/such/file.jsonl'), null);
    const file = tempFile(sessionText([user('u1', null, 'a'), user('u2', 'u1', 'b')]));
    assert.equal((await cache.get(file))!.messageCount, 2);
    writeFileSync(file, sessionText([user('u1', null, 'z')]));
    const again = (await cache.get(file))!;
    assert.equal(again.messageCount, 1);
    assert.equal(again.firstMessage, 'z');
  });
});
