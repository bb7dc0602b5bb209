// Tool calls noted from their bytes (src/cli/tree/callNotes.ts): a call is found by its id's bytes and its
// text written as bytes only when that is exactly what formatToolCall gives; every row reads as when
// the entries are parsed whole, whatever the ids and arguments are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { both } from '../../support/notedRows.js';
import { assistant, entry, sessionText, tempFile, user } from '../../support/tmp.js';

const call = (id: unknown, name: string, args?: unknown) => ({
  type: 'toolCall',
  id,
  name,
  ...(args === undefined ? {} : { arguments: args }),
});
const says = (id: string, parentId: string, calls: unknown[], more: Record<string, unknown> = {}) =>
  assistant(id, parentId, '', {
    content: [{ type: 'text', text: `calls of ${id}` }, ...calls],
    stopReason: 'toolUse',
    ...more,
  });
const result = (id: string, parentId: string, callId: unknown, toolName = 'tool') =>
  entry('message', id, parentId, {
    message: {
      role: 'toolResult',
      toolCallId: callId,
      toolName,
      content: [{ type: 'text', text: 'out' }],
      isError: false,
      timestamp: 1,
    },
  });

/** A session of one assistant message per call, each answered by a result; then `lines`. */
function session(calls: [string, unknown][], lines: Record<string, unknown>[] = []): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [user('u0', null, 'go')];
  let parent = 'u0';
  calls.forEach(([name, args], k) => {
    out.push(says(`a${k}`, parent, [call(`c${k}`, name, args)]), result(`r${k}`, `a${k}`, `c${k}`));
    parent = `r${k}`;
  });
  for (const l of lines) {
    out.push({ ...l, parentId: parent });
    parent = l.id as string;
  }
  return out;
}

/** The texts of the rows in filter 'all'. */
function shownIn(plain: string[]): (s: string) => boolean {
  const all = plain.slice(plain.indexOf('-- all'));
  return (s) => all.some((r) => r.includes(s));
}

describe('tool calls noted from their bytes', () => {
  it('call texts: the same as formatToolCall for every shape of the arguments it reads', async () => {
    const home = process.env.HOME ?? '/root';
    const paths: unknown[] = [
      'src/a.ts',
      '',
      ' ',
      '.',
      '/etc/hosts',
      home,
      `${home}/x.ts`,
      `/tmp/..${home}/y.ts`,
      `${home}//z.ts`,
      'ü.ts',
      'a"b',
      'a\\b',
      'del\u007f',
      'c\u0001',
      7,
      0,
      null,
      true,
      ['a'],
    ];
    const lines: unknown[] = [1, 0, 3, '7', 1.5, -2, 123456789, 1234567890, 777777, null, 'x'];
    const commands: unknown[] = [
      'ls',
      '',
      '   ',
      `  ${'x'.repeat(50)}  `,
      'y'.repeat(50),
      'y'.repeat(51),
      `${'z'.repeat(48)}   `,
      'a\nb',
      'tab\there',
      'é',
      12,
      null,
    ];
    const calls: [string, unknown][] = [];
    for (const name of ['read', 'write', 'edit', 'ls', 'grep', 'find'])
      for (const p of paths) {
        calls.push([name, { path: p }], [name, { file_path: p }], [name, { path: p, file_path: 'f.ts' }]);
        if (name === 'grep' || name === 'find') calls.push([name, { pattern: p, path: 'src' }], [name, { pattern: p }]);
      }
    for (const offset of [undefined, ...lines])
      for (const limit of [undefined, ...lines]) calls.push(['read', { path: 'r.ts', offset, limit }]);
    for (const command of commands) calls.push(['bash', { command }]);
    // no arguments, empty ones, arguments that are not an object; another tool; a name not plain
    calls.push(
      ['edit', { path: 'outer.ts', edits: [{ path: 'inner.ts' }], opts: { path: 'deep.ts', offset: 2 } }],
      ['ls', { opts: { path: 'deep' } }],
    );
    calls.push(
      ['write', { path: 'before.ts' }],
      ['edit', undefined],
      ['bash', {}],
      ['ls', null],
      ['grep', 'src'],
      ['write', []],
      ['mcp_x', { path: 'a' }],
      ['r\u00e9ad', { path: 'a' }],
    );
    // (a line number of more digits than a double holds exactly)
    let text = sessionText(session(calls)).replace(/:777777([,}])/g, ':98765432109876543210$1');
    // spelled other ways: escaped names, keys and values; numbers JSON.parse reads as whole; repeated keys (the last counts)
    text = text.replace(
      '"name":"edit","arguments":{"path":"src/a.ts"}',
      '"name":"\\u0065dit","arguments":{"path":"src/a.ts"}',
    );
    text = text.replace(
      '"name":"write","arguments":{"path":"src/a.ts"}',
      '"name":"write","arguments":{"p\\u0061th":"src/a.ts"}',
    );
    text = text.replace('"name":"ls","arguments":{"path":"src/a.ts"}', '"name":"ls","arguments":{"path":"src\\/a.ts"}');
    text = text.replace(
      '"name":"read","arguments":{"path":"r.ts","offset":3,"limit":3}',
      '"name":"read","arguments":{"path":"r.ts","offset":3e0,"limit":30E-1}',
    );
    text = text.replace(
      '"name":"read","arguments":{"path":"r.ts","offset":3,"limit":1}',
      '"name":"read","arguments":{"path":"r.ts","offset":3.0,"limit":1,"offset":5}',
    );
    text = text.replace(
      '"name":"grep","arguments":{"pattern":"src/a.ts","path":"src"}',
      '"name":"grep","arguments":{"pattern":"src/a.ts","path":"src"},"name":"find","arguments":{"path":"q"}',
    );
    // repeated arguments (the last counts): two objects, one with an escaped key and a plain one, an object and a string
    text = text.replace('"name":"bash","arguments":{}', '"name":"bash","arguments":{},"name":"find"');
    text = text.replace(
      '"arguments":{"path":"r.ts","offset":1,"limit":1}',
      '"arguments":{"path":"r.ts","offset":1,"limit":1},"arguments":{"path":"second.ts"}',
    );
    text = text.replace(
      '"arguments":{"path":"r.ts","offset":1,"limit":0}',
      '"arguments":{"p\\u0061th":"r.ts"},"arguments":{"path":"third.ts"}',
    );
    text = text.replace(
      '"arguments":{"path":"r.ts","offset":0,"limit":1}',
      '"arguments":{"path":"r.ts"},"arguments":"gone"',
    );
    text = text.replace(
      '"arguments":{"path":"r.ts","offset":0,"limit":0}',
      '"arguments":{"path":"r.ts"},"arguments":{"path":"fourth.ts","p\\u0061th":"x"}',
    );
    const { plain, withNotes, callsFromBytes } = await both(tempFile(text));
    assert.deepStrictEqual(withNotes, plain);
    assert.ok(callsFromBytes > 150, `${callsFromBytes} of ${calls.length} call texts from their bytes`);
    const shown = shownIn(plain);
    assert.ok(
      shown('[read: r.ts:3-5]') &&
        shown('[read: r.ts:5-5]') &&
        shown('[read: r.ts:123456789-246913577]') &&
        shown('[read: r.ts:1234567890]'),
    );
    assert.ok(
      shown(`[bash: ${'x'.repeat(50)}...]`) &&
        shown(`[bash: ${'y'.repeat(50)}]`) &&
        shown(`[bash: ${'z'.repeat(48)}...]`) &&
        shown('[find: '),
    ); // (raw length counts)
    for (const s of [
      '[find:  in .]',
      '[read: second.ts]',
      '[read: third.ts]',
      '[read: ]',
      '[read: x]',
      '[edit: outer.ts]',
      '[ls: .]',
      '[edit: ~/x.ts]',
      '[write: /etc/hosts]',
      '[ls: ~]',
      '[grep: /7/ in src]',
      '[find:  in q]',
      '[ls: src/a.ts]',
      '[write: f.ts]',
    ])
      assert.ok(shown(s), s);
  });

  it('ids: a call is found by its id however the id is written, the last call with it in the file names its results', async () => {
    const lines = [
      user('u0', null, 'go'),
      // results before their calls (the call later in the file names them)
      result('r0', 'u0', 'late', 'read'),
      result('r1', 'r0', '\u00e9t\u00e9', 'read'),
      says('a0', 'r1', [call('late', 'read', { path: 'one.ts' }), call('\u00e9t\u00e9', 'ls', { path: 'd' })]),
      // ids with escapes, non-ASCII, lone surrogates, control characters, numbers; each answered
      says('a1', 'a0', [
        call('esc', 'edit', { path: 'e.ts' }),
        call('n\u00f6n', 'write', { path: 'w.ts' }),
        call('\ud800', 'ls', { path: 'lone' }),
        call('\udc00\ud800', 'ls', { path: 'pair' }),
      ]),
      says('a2', 'a1', [
        call('', 'ls', { path: 'empty' }),
        call(42, 'grep', { pattern: 'p' }),
        call('ctl\u0001', 'find', { pattern: 'c' }),
        call('del\u007f', 'ls', { path: 'del' }),
        call(null, 'ls', { path: 'null' }),
      ]),
      result('r2', 'a2', 'esc', 'edit'),
      result('r3', 'r2', 'n\u00f6n', 'write'),
      result('r4', 'r3', '\ud800', 'ls'),
      result('r5', 'r4', '\udc00\ud800', 'ls'),
      result('r6', 'r5', '42', 'grep'),
      result('r7', 'r6', 42, 'grep'),
      result('r8', 'r7', 'ctl\u0001', 'find'),
      result('r9', 'r8', 'del\u007f', 'ls'),
      result('r10', 'r9', 'null', 'ls'),
      result('r11', 'r10', '', 'ls'),
      result('r12', 'r11', 'nowhere', 'bash'),
      // the same id again: a later call renames the results of the earlier one, before and after it
      says('a3', 'r12', [call('dup', 'read', { path: 'first.ts' })]),
      result('r13', 'a3', 'dup', 'read'),
      says('a4', 'r13', [call('dup', 'write', { path: 'second.ts' }), call('dup', 'edit', { path: 'third.ts' })]),
      result('r14', 'a4', 'dup', 'edit'),
      says('a5', 'r14', [call('esc2', 'ls', { path: 'before' })]),
      says('a6', 'a5', [call('esc2', 'ls', { path: 'after' })]),
      result('r15', 'a6', 'esc2', 'ls'),
    ];
    let text = sessionText(lines);
    // 'esc' written with escapes in the call (its result plainly), 'esc2' escaped only in the result,
    // and in the later call of it; the 'dup' result's id spelled with an escape
    text = text.replace('"id":"esc","name"', '"id":"\\u0065sc","name"');
    text = text.replace('"toolCallId":"esc2"', '"toolCallId":"esc\\u0032"');
    text = text.replace(
      '"id":"esc2","name":"ls","arguments":{"path":"after"}',
      '"id":"\\u0065sc2","name":"ls","arguments":{"path":"after"}',
    );
    text = text.replace('"toolCallId":"dup","toolName":"edit"', '"toolCallId":"d\\u0075p","toolName":"edit"');
    const { plain, withNotes, callsFromBytes } = await both(tempFile(text));
    assert.deepStrictEqual(withNotes, plain);
    assert.ok(callsFromBytes >= 10, `${callsFromBytes} call texts from their bytes`);
    const shown = shownIn(plain);
    assert.ok(
      shown('[read: one.ts]') &&
        shown('[ls: d]') &&
        shown('[edit: e.ts]') &&
        shown('[ls: lone]') &&
        shown('[ls: pair]') &&
        shown('[grep: /p/ in .]'),
    );
    assert.ok(
      shown('[find: c in .]') &&
        shown('[ls: del]') &&
        shown('[ls: null]') &&
        shown('[bash]') &&
        shown('[edit: third.ts]') &&
        shown('[ls: after]'),
    );
    assert.ok(
      !shown('[read: first.ts]') && !shown('[write: second.ts]') && !shown('[ls: before]'),
      'the last call with the id names its results',
    );
    assert.ok(!shown('[ls: empty]'), 'a result without an id (an empty one) is not named after a call');
  });

  it('stop reasons, compared as bytes: the rows the filters keep are the same', async () => {
    // messages with calls and no text: a filter keeps those that ended in error
    const lines: Record<string, unknown>[] = [user('u0', null, 'go')];
    const reasons: unknown[] = [
      'stop',
      'toolUse',
      'aborted',
      'error',
      'length',
      '',
      'stopped',
      'toolUs',
      0,
      1,
      true,
      false,
      null,
      'escaped stop',
    ];
    reasons.forEach((stopReason, k) =>
      lines.push(
        assistant(`a${k}`, k ? `a${k - 1}` : 'u0', '', {
          content: [call(`c${k}`, 'ls', { path: `${k}` })],
          stopReason,
        }),
      ),
    );
    lines.push(user('u1', `a${reasons.length - 1}`, 'last'));
    const text = sessionText(lines)
      .replace('"stopReason":"escaped stop"', '"stopReason":"st\\u006fp"')
      .replace('"stopReason":"aborted"', '"stopReason":"\\u0061borted"');
    const { plain, withNotes } = await both(tempFile(text));
    assert.deepStrictEqual(withNotes, plain);
    // 'aborted', 'error', 'length', 'stopped', 'toolUs', 1, true
    assert.equal(plain.slice(plain.indexOf('-- all')).filter((r) => r.includes('assistant: (')).length, 7);
  });
});
