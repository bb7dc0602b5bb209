// A tree's title is worked out on every meta the webview gets (pi busy, idle, a setting): it must read
// the index's columns, not make a record object per entry (#35: at 1M entries, a million objects per pi
// event on the extension host's thread). The same titles as before: the name, the first message, a
// fork's own first message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionIndex } from '../../../src/core/index/sessionIndex.js';
import { Session } from '../../../src/core/session/session.js';
import { firstUserTexts, titleOf } from '../../../src/host/panels/sessionTitles.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';

function big(n: number, named: boolean): SessionBuilder {
  const b = new SessionBuilder();
  b.user('the first question');
  for (let i = 0; i < n; i++) b.assistant({ text: `answer ${i}` });
  if (named) b.add('session_info', { name: 'Named session' });
  for (let i = 0; i < 10; i++) b.assistant({ text: `more ${i}` });
  return b;
}

describe('session titles read the columns', () => {
  it('titleOf and firstUserTexts make no record per entry (20k entries)', async () => {
    for (const named of [true, false]) {
      const s = await Session.inMemory(big(20_000, named).text());
      let views = 0;
      const proto = SessionIndex.prototype as unknown as { view(i: number): unknown };
      const view = proto.view;
      proto.view = function (this: unknown, i: number) {
        views++;
        return view.call(this, i);
      };
      try {
        const texts = await firstUserTexts(s);
        views = 0;
        const title = titleOf(s, texts, 'fallback');
        assert.equal(views, 0, 'no record objects for the title');
        assert.equal(title, named ? 'Named session' : 'the first question');
        assert.equal(texts.first, 'the first question');
      } finally {
        proto.view = view;
      }
    }
  });

  it("a fork without a user message is named by its source, numbered as in the sidebar, never by its file's name", async () => {
    const b = new SessionBuilder();
    const s = await Session.inMemory(b.text());
    (s.header as { parentSession?: string }).parentSession = '/sessions/source.jsonl';
    (s.header as { timestamp?: string }).timestamp = new Date(2026, 11, 6, 6, 31).toISOString();
    const texts = await firstUserTexts(s);
    const title = titleOf(s, texts, '2026-12-06T06-31-08-552Z_0199.jsonl', 80, { kind: 'fork', n: 1, of: 1 }, 'Reader');
    assert.equal(title, 'Reader (fork 1 · 06:31)');
  });
});
