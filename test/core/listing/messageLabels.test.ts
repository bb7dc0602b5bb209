// The fork pick's labels of user messages (src/core/messageLabels.ts), read from the head of each line's
// bytes: the same labels, times and order as the command made when it loaded every user message whole,
// on pi's author's real files, generated sessions and odd lines; and the reading gives the event loop
// its turns.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  hasUserMessages,
  labelFromBytes,
  labelOf,
  userMessageLabels,
  type MessageLabel,
} from '../../../src/core/listing/messageLabels.js';
import { fullText } from '../../../src/core/context/entryText.js';
import { Session } from '../../../src/core/session/session.js';
import { oneLine } from '../../../src/core/listing/sessionTitle.js';
import { messageOf } from '../../../src/core/format/types.js';
import { generateSession } from '../../support/generate.js';
import { countTurns } from '../../support/loopTurns.js';
import { assistant, entry, lines, sessionText, tempDir, tempFile, user } from '../../support/tmp.js';

/** The fork command's old labels: every live user message loaded whole (as it was before messageLabels.ts). */
async function oldLabels(s: Session): Promise<MessageLabel[]> {
  const oneLine = (t: string, max: number) => {
    const x = t.replace(/\s+/g, ' ').trim();
    return x.length > max ? `${x.slice(0, max - 1)}…` : x;
  };
  const users = s.index.live().filter((r) => r.type === 'message' && r.role === 'user');
  const entries = await s.load(users);
  return users
    .map((r, i) => ({ r, e: entries[i] }))
    .filter((x) => x.e)
    .map(({ r, e }) => ({
      label: oneLine(fullText(messageOf(e!)?.content), 100),
      description: new Date(r.time).toLocaleString(),
      id: r.id,
    }))
    .filter((x) => x.label.trim())
    .reverse();
}

async function same(file: string): Promise<MessageLabel[]> {
  const s = await Session.open(file);
  const labels = await userMessageLabels(s);
  assert.deepStrictEqual(labels, await oldLabels(await Session.open(file)));
  return labels;
}

/** How many labels of user messages with text come from their lines' bytes. */
async function fromBytes(file: string): Promise<number> {
  const s = await Session.open(file);
  let n = 0;
  await s.visitIdx(s.index.liveIdx(), (_k, i, bytes) => {
    if (s.index.roleOf(i) === 'user' && labelFromBytes(s.index, i, bytes)) n++;
  });
  return n;
}

/** A user message line with `content` as its message's content. */
function userWith(id: string, parentId: string | null, content: unknown): Record<string, unknown> {
  const u = user(id, parentId, '');
  return { ...u, message: { ...(u.message as object), content } };
}

describe('fork pick labels', () => {
  it("pi's author's real files (v1, migrated in memory): the same labels as loading each message whole", async () => {
    for (const real of ['pi-mono-large-session.v1.jsonl', 'pi-mono-before-compaction.jsonl']) {
      const file = join(tempDir(), real);
      copyFileSync(join(__dirname, '..', '..', 'fixtures', 'real', real), file);
      const labels = await same(file);
      assert.ok(labels.length > 10, `${real}: ${labels.length} labels`);
      // v1 entries are held in memory, and a migrated file's lines have their keys in another order than
      // pi writes a new line's: the same entries written as pi writes them take the bytes path
      await (await Session.open(file)).setName('migrated');
      const v3 = lines(file).map(({ type, id, parentId, timestamp, message, ...rest }) =>
        message ? { type, id, parentId, timestamp, message } : { type, id, parentId, timestamp, ...rest },
      );
      const piShape = tempFile(v3.map((e) => `${JSON.stringify(e)}\n`).join(''));
      assert.deepStrictEqual(await same(piShape), labels);
      assert.equal(await fromBytes(piShape), labels.length, real);
    }
  });

  it('a generated session: the same labels, read from the bytes (none parsed whole)', async () => {
    const g = generateSession({ seed: 7, entries: 10_000, branchRate: 0.05, compactions: 3, labels: 6 });
    const file = tempFile(g.text);
    const labels = await same(file);
    assert.equal(labels.length, g.userIds.length);
    // every label came from its line's bytes: none was left to the whole-entry parse
    assert.equal(await fromBytes(file), labels.length);
  });

  it('odd lines: each label reads as the message parsed whole does', async () => {
    const long = (head: string) => `${head}${'word '.repeat(400)}`;
    const lines = [
      user('u1', null, 'plain text'),
      userWith('u2', 'u1', 'a string content\r\nwith\tlines\u2028and  spaces'),
      userWith('u3', 'u2', [
        { type: 'image', data: 'A'.repeat(300_000), mimeType: 'image/png' },
        { type: 'text', text: '  after   the image ' },
      ]),
      userWith('u4', 'u3', [
        { type: 'text', text: 'one ' },
        { type: 'text', text: 'two' },
        { type: 'text' },
        { type: 'text', text: 3 },
        { type: 'text', text: null },
        'loose',
        [1],
        null,
        { type: 'text', text: { a: 1 } },
      ]),
      // exactly at the limit, and one past it
      user('u5', 'u4', 'x'.repeat(100)),
      user('u6', 'u5', 'x'.repeat(101)),
      user('u7', 'u6', ` ${'y'.repeat(100)} `),
      // long texts: the head alone fixes the label, cut inside escapes and multi-byte characters
      ...Array.from({ length: 12 }, (_, k) => user(`l${k}`, 'u7', `${'é'.repeat(k)}${'😀\n\\"\u0001é'.repeat(600)}`)),
      ...Array.from({ length: 8 }, (_, k) => user(`m${k}`, 'u7', long('x'.repeat(1000 + k)))),
      // whitespace first: the head is not enough
      user('w1', 'u7', `${' \n'.repeat(2000)}late text ${'z'.repeat(200)}`),
      user('w2', 'u7', `${'\t'.repeat(3000)}short`),
      userWith('w3', 'u7', [
        { type: 'text', text: ' '.repeat(5000) },
        { type: 'text', text: long('second block ') },
      ]),
      // no text: left out
      user('e1', 'u7', ''),
      user('e2', 'u7', ' \n\t '),
      userWith('e3', 'u7', null),
      userWith('e4', 'u7', [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }]),
      userWith('e5', 'u7', { type: 'text', text: 'an object' }),
      // a lone surrogate escaped, and one cut between the two halves of a pair
      user('s1', 'u7', `\ud800 lone ${'q'.repeat(200)}`),
      user('s2', 'u7', `${'s'.repeat(1019)}${'😀'.repeat(300)}`),
      assistant('a1', 'u7', 'not a user message'),
    ];
    let text = sessionText(lines);
    // escapes the serializer would not write: in a "type" value, a text, a key; a repeated content key
    text += `${JSON.stringify(user('x1', 'u7', 'X'))
      .replace('"type":"text"', '"type":"t\\u0065xt"')
      .replace('"text":"X"', '"text":"\\u0058 escaped"')}\n`;
    text += `${JSON.stringify(user('x2', 'u7', 'X')).replace('"content":', '"c\\u006fntent":')}\n`;
    text += `${JSON.stringify(user('x3', 'u7', 'first')).replace('"content":', '"content":"dropped","content":')}\n`;
    text += `${JSON.stringify(user('x4', 'u7', 'Y')).replace('"type":"text"', '"type":"texts"')}\n`;
    // a pair of escaped surrogates cut between its halves, right after the label's 100th character
    for (const [id, as] of [
      ['p1', 100],
      ['p2', 99],
    ] as const)
      text += `${JSON.stringify(user(id, 'u7', `${' '.repeat(914)}${'a'.repeat(as)}PAIR${'b'.repeat(400)}`)).replace('PAIR', '\\ud83d\\ude00')}\n`;
    // not in pi's shape (keys in another order): parsed whole
    const odd = user('o1', 'u7', 'other order');
    text += `${JSON.stringify({ message: odd.message, id: odd.id, type: odd.type, parentId: odd.parentId, timestamp: odd.timestamp })}\n`;
    // a duplicate id: the later one is the live one
    text += `${JSON.stringify(user('u1', 'u7', 'the u1 that counts'))}\n`;
    const labels = await same(tempFile(text));
    const byId = new Map(labels.map((l) => [l.id, l.label]));
    assert.equal(byId.get('u1'), 'the u1 that counts');
    assert.equal(byId.get('u3'), 'after the image');
    assert.equal(byId.get('u4'), 'one two3[object Object]');
    assert.equal(byId.get('u6'), `${'x'.repeat(99)}…`);
    assert.equal(byId.get('w2'), 'short');
    assert.equal(byId.get('x1'), 'X escaped');
    assert.equal(byId.get('x3'), 'first');
    assert.equal(byId.get('p1'), `${'a'.repeat(99)}…`);
    assert.equal(byId.get('p2'), `${'a'.repeat(99)}…`);
    assert.ok(!['e1', 'e2', 'e3', 'e4', 'e5', 'a1', 'x4'].some((id) => byId.has(id)));
    assert.ok(labels.every((l) => l.label.length <= 100));
  });

  it('a label is oneLine of the text: every whitespace character, and starts that fix it or not', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      for (const t of [`a${ch}b`, `${ch}x${ch}${ch}`, `${'w'.repeat(99)}${ch}${ch}z`])
        assert.equal(labelOf(t, true), oneLine(t, 100), `U+${c.toString(16)}`);
    }
    for (const t of [
      '',
      ' ',
      'x'.repeat(100),
      ` ${'x'.repeat(100)}  `,
      'x'.repeat(101),
      `${'ab '.repeat(33)}a`,
      `${'ab '.repeat(33)}ab`,
      `\t${'ab\n'.repeat(40)}`,
    ]) {
      assert.equal(labelOf(t, true), oneLine(t, 100), JSON.stringify(t));
      // a start fixes the label only when any text after it would give the same
      const fixed = labelOf(t, false);
      if (fixed !== undefined)
        for (const more of ['', ' ', 'tail', '\n more']) assert.equal(fixed, oneLine(t + more, 100));
    }
  });

  it('no user messages: none found without reading', async () => {
    const s = await Session.open(
      tempFile(
        sessionText([entry('model_change', 'm1', null, { provider: 'p', modelId: 'x' }), assistant('a1', 'm1', 'hi')]),
      ),
    );
    assert.equal(hasUserMessages(s.index), false);
    assert.deepStrictEqual(await userMessageLabels(s), []);
    const t = await Session.open(tempFile(sessionText([user('u1', null, 'hi'), assistant('a1', 'u1', 'hello')])));
    assert.equal(hasUserMessages(t.index), true);
  });

  it('a big build gives the event loop its turns, and stops when aborted', async () => {
    const g = generateSession({ seed: 11, entries: 40_000, branchRate: 0.02, compactions: 2, labels: 0 });
    const file = tempFile(g.text);
    const s = await Session.open(file, { sliceMs: 2 });
    const turns = countTurns();
    const labels = await userMessageLabels(s, { sliceMs: 2 });
    turns.stop();
    assert.equal(labels.length, g.userIds.length);
    assert.ok(turns.count >= 2, `event-loop turns during the build: ${turns.count}`);
    const stop = new AbortController();
    const aborted = userMessageLabels(s, { signal: stop.signal, sliceMs: 2 });
    stop.abort();
    await assert.rejects(aborted, { name: 'AbortError' });
  });
});
