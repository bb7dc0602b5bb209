// What the tree shows of each entry, noted while a session is read (what `pi-tree tree` does,
// src/cli/tree/rowFacts.ts): every row comes out exactly as when each entry is parsed whole afterwards, in
// every filter, and the noting really takes the lines in pi's shape (so these comparisons test it).
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateSession } from '../../support/generate.js';
import { both } from '../../support/notedRows.js';
import { assistant, entry, sessionText, tempDir, tempFile, user } from '../../support/tmp.js';

describe('tree rows noted while reading', () => {
  it('generated sessions in pi shape: the same rows in every filter, the message lines noted', async () => {
    for (const [seed, entries] of [
      [1, 300],
      [2, 3000],
      [4, 12_000],
    ]) {
      const g = generateSession({ seed, entries, branchRate: 0.05, compactions: 3, labels: 6 });
      const { plain, withNotes, noted, messages, fromBytes } = await both(tempFile(g.text));
      assert.deepStrictEqual(withNotes, plain);
      assert.ok(fromBytes > noted / 3, `seed ${seed}: ${fromBytes} of ${noted} noted straight from their bytes`);
      assert.ok(
        plain.some((r) => r.includes('[bash')) && plain.some((r) => r.includes('assistant: ')),
        'the session has tool calls and text',
      );
      // (a line across two 1 MiB reads is put together outside the validator's memory: read later)
      const across = Math.floor(Buffer.byteLength(g.text) / (1 << 20));
      assert.ok(
        noted >= messages - across - 5 && noted <= messages,
        `seed ${seed}: ${noted} of ${messages} messages noted`,
      );
    }
  });

  it('texts kept in many small chunks (and batches) read and write back the same', async () => {
    const g = generateSession({ seed: 9, entries: 3000, branchRate: 0.05, compactions: 2, labels: 3 });
    const { plain, withNotes, noted } = await both(tempFile(g.text), 512);
    assert.deepStrictEqual(withNotes, plain);
    assert.ok(noted > 2000, `${noted} noted`);
  });

  it("pi's author's real files (v1, migrated in memory): the same rows", async () => {
    for (const real of ['pi-mono-large-session.v1.jsonl', 'pi-mono-before-compaction.jsonl']) {
      const file = join(tempDir(), real);
      copyFileSync(join(__dirname, '..', '..', 'fixtures', 'real', real), file);
      const { plain, withNotes } = await both(file);
      assert.deepStrictEqual(withNotes, plain, real);
    }
  });

  it('odd lines: each row reads as the parsed entry does, whichever way it was read', async () => {
    const call = (id: string, name: string, args: Record<string, unknown>) => ({
      type: 'toolCall',
      id,
      name,
      arguments: args,
    });
    const result = (id: string, parentId: string, callId: string, toolName: string) =>
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
    const many = Array.from({ length: 70 }, (_, k) => ({ type: 'text', text: `p${k} ` }));
    const home = process.env.HOME ?? '/root';
    const lines = [
      user('u1', null, 'first\r\nline\twith\u001b[31m escapes \u202e and 😀'),
      // a result read before the call it answers (the call comes later in the file)
      result('r0', 'u1', 'late', 'read'),
      assistant('a1', 'r0', '', {
        content: [
          { type: 'thinking', thinking: 'hmm' },
          call('late', 'read', { path: `${home}/x/y.ts`, offset: 3, limit: 4 }),
        ],
        stopReason: 'toolUse',
      }),
      result('r1', 'a1', 'late', 'read'),
      // the same call id again and again: the last one in the file names the result
      assistant('a2', 'r1', 'two', {
        content: [call('dup', 'bash', { command: 'echo one\nthen two' }), { type: 'text', text: 'x'.repeat(300) }],
      }),
      result('r2', 'a2', 'dup', 'bash'),
      assistant('a3', 'r2', '', {
        content: [call('dup', 'grep', { pattern: 'a|b', path: 'src' })],
        stopReason: 'error',
        errorMessage: 'boom\nbad',
      }),
      // no text and ended in error; aborted; a number for a text
      assistant('a4', 'a3', '', { content: [], stopReason: 'aborted' }),
      assistant('a4e', 'a4', '', { content: [], stopReason: 'error', errorMessage: 'rate\nlimited' }),
      assistant('a5', 'a4e', '', {
        content: [
          { type: 'text', text: 42 },
          { type: 'text', text: '  ' },
        ],
      }),
      // more blocks than the notes hold; an element that is not an object
      assistant('a6', 'a5', '', { content: many }),
      assistant('a7', 'a6', '', { content: ['text', { type: 'text', text: 'after a string' }] }),
      // a lone surrogate, text as a string, other roles
      entry('message', 'u2', 'a7', { message: { role: 'user', content: 'lone \ud800 half', timestamp: 1 } }),
      entry('message', 'b1', 'u2', {
        message: { role: 'bashExecution', command: 'ls -la\n', output: 'x', exitCode: 0, timestamp: 1 },
      }),
      entry('message', 'c1', 'b1', { message: { role: 'custom', content: 'c', timestamp: 1 } }),
      // the last call with the duplicate id: it names r2, not a3's calls parsed later
      assistant('a8', 'c1', 'tool with a long name', {
        content: [call('t9', 'mcp_tool', { q: 'x'.repeat(80) }), call('dup', 'write', { file_path: 'w.ts' })],
      }),
      result('r9', 'a8', 't9', 'mcp_tool'),
      entry('label', 'l1', 'r9', { targetId: 'a2', label: 'here \u001b' }),
      user('u3', 'l1', 'last'),
    ];
    let text = sessionText(lines);
    // an escaped key: a5's line is parsed whole, later
    text = text.replace(/("id":"a5".*?)"stopReason"/, '$1"stop\\u0052eason"');
    // a duplicate content key (the last one counts), a third call with the duplicate id, escaped (parsed later)
    text = text.replace(/("id":"a8".*?"content":)/, '$1[{"type":"text","text":"first content"}],"content":');
    text = text.replace(
      /("id":"a3".*?)"content":\[/,
      '$1"content":[{"type":"tool\\u0043all","id":"dup","name":"ls","arguments":{"path":"z"}},',
    );
    // the last line without its newline is read by JavaScript, not the WebAssembly validator
    text += JSON.stringify(assistant('a9', 'u3', 'tail'));
    const { plain, withNotes, noted } = await both(tempFile(text));
    assert.deepStrictEqual(withNotes, plain);
    const all = plain.slice(plain.indexOf('-- all'));
    const shown = (t: string) => all.some((r) => r.includes(t));
    assert.ok(
      shown('[write: w.ts]') && !shown('[grep:') && !shown('[ls: z]') && !shown('[bash:'),
      'the last call with the id in the file names the result',
    );
    assert.ok(
      shown('lone \\ud800 half') &&
        shown('[read: ~/x/y.ts:3-6]') &&
        shown('first content') === false &&
        shown('assistant: rate limited'),
    );
    assert.ok(noted >= 12, `${noted} noted`);
  });

  it('texts read straight from the bytes: the window of 200 characters, trimmed, across blocks; anything else read the other way', async () => {
    const text = (t: unknown, extra: Record<string, unknown> = {}) => ({ type: 'text', ...extra, text: t });
    const call = (id: unknown, name: string, args: unknown) => ({ type: 'toolCall', id, name, arguments: args });
    const home = process.env.HOME ?? '/root';
    const says = (id: string, parentId: string, content: unknown, more: Record<string, unknown> = {}) =>
      assistant(id, parentId, '', { content, ...more });
    const lines = [
      user('u1', null, `${' '.repeat(250)}after the window`),
      says('a1', 'u1', [text(`${' '.repeat(199)}x`), text('y'.repeat(30))]),
      says('a2', 'a1', [
        text('a'.repeat(150)),
        { type: 'image', data: 'x' },
        text(`  ${'b'.repeat(100)}`),
        text('never shown'),
      ]),
      says('a3', 'a2', [text('trailing   '), text('   ')], { stopReason: 'stop' }),
      says('a4', 'a3', [
        text('nested', {
          cache: { note: 'a "quoted" } brace', list: [1, { x: '[' }] },
          n: -1.5e3,
          ok: true,
          nil: null,
        }),
      ]),
      says('a5', 'a4', [text('tabs\tand\nlines')]),
      says('a6', 'a5', [text('ünïcode')]),
      says('a7', 'a6', [text(null), text('after null')]),
      says('a8', 'a7', [{ type: 'text' }, text('no text key before')]),
      entry('message', 'u2', 'a8', { message: { role: 'user', content: 'a plain string', timestamp: 1 } }),
      entry('message', 'u3', 'u2', { message: { role: 'user', content: '   ', timestamp: 1 } }),
      says(
        'a9',
        'u3',
        [
          call('c1', 'read', { path: `${home}/p.ts`, offset: '7', limit: 2 }),
          call('c2', 'bash', { command: 'echo "a\\nb"', timeout: 5 }),
        ],
        { stopReason: 'toolUse' },
      ),
      says(
        'a10',
        'a9',
        [
          call(42, 'edit', { file_path: 'e.ts', oldText: '{'.repeat(10), newText: '}' }),
          call('c4', 'custom', { q: 1 }),
          call('c5', 'ls', null),
          call('c6', 'grep', 'not an object'),
        ],
        {
          stopReason: 'aborted',
        },
      ),
      says('a11', 'a10', [text(' '.repeat(300))], { stopReason: 'length' }),
      says('a12', 'a11', [], { stopReason: 'error', errorMessage: 'overloaded' }),
      says('a13', 'a12', [text('fine'), call('c7', 'write', { path: 'w.ts', content: 'x'.repeat(5000) })], {
        stopReason: 'weird',
      }),
      entry('message', 'r1', 'a13', {
        message: {
          role: 'toolResult',
          toolCallId: 'c1',
          toolName: 'read',
          content: [text('out')],
          isError: false,
          timestamp: 1,
        },
      }),
      entry('message', 'r2', 'r1', {
        message: {
          role: 'toolResult',
          toolCallId: '42',
          toolName: 'edit',
          content: [text('out')],
          isError: false,
          timestamp: 1,
        },
      }),
      entry('message', 'r3', 'r2', {
        message: {
          role: 'toolResult',
          toolCallId: 'c5',
          toolName: 'ls',
          content: [text('out')],
          isError: false,
          timestamp: 1,
        },
      }),
      entry('message', 'r4', 'r3', {
        message: {
          role: 'toolResult',
          toolCallId: 'c6',
          toolName: 'grep',
          content: [text('out')],
          isError: false,
          timestamp: 1,
        },
      }),
      entry('message', 'r5', 'r4', {
        message: {
          role: 'toolResult',
          toolCallId: 'c2',
          toolName: 'bash',
          content: [text('out')],
          isError: false,
          timestamp: 1,
        },
      }),
      user('u4', 'r5', 'last'),
    ];
    let t = sessionText(lines);
    // a duplicate text key (the last counts); a text key spelled with an escape (read the other way);
    // an argument key spelled with an escape
    t = t.replace(/("id":"a8".*?"text":"no text key before")/, '$1,"text":"the last text key"');
    t = t.replace(/("id":"u4".*?)"text":"last"/, '$1"t\\u0065xt":"escaped key"');
    t = t.replace(/("id":"a13".*?)"path":"w.ts"/, '$1"p\\u0061th":"w.ts"');
    const { plain, withNotes, fromBytes } = await both(tempFile(t));
    assert.deepStrictEqual(withNotes, plain);
    const all = plain.slice(plain.indexOf('-- all'));
    const shown = (s: string) => all.some((r) => r.includes(s));
    assert.ok(
      shown('"assistant: x"') &&
        shown(`assistant: ${'a'.repeat(150)}  ${'b'.repeat(48)}"`) &&
        shown('"assistant: trailing"'),
    );
    assert.ok(
      shown('assistant: the last text key') &&
        shown('user: escaped key') &&
        shown('assistant: after null') &&
        shown('user: a plain string'),
    );
    assert.ok(
      shown(`[read: ~/p.ts:7-8]`) &&
        shown('[edit: e.ts]') &&
        shown('[ls: .]') &&
        shown('[grep: //') &&
        shown('[bash: echo \\"a\\\\nb\\"]') &&
        shown('assistant: (aborted)'),
    );
    assert.ok(shown('"assistant: (no content)"') && shown('assistant: overloaded'));
    // a1–a4, a8, a9, a10 (aborted), a11 (text only past the window), a13, u2; not u1 (blank in the
    // window), a5 (escapes), a6 (not ASCII), a7 (null), u3 (blank), a12 (its error is the text), u4
    assert.equal(fromBytes, 10);
  });

  it('random messages, some spaced out: the rows noted from the bytes are the rows JSON.parse gives', async () => {
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const count = (n: number) => Math.floor(rnd() * n);
    const bits = [
      'a',
      'b',
      ' ',
      '   ',
      'é',
      '😀',
      '"',
      '\\',
      '\n',
      '\t',
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      'x'.repeat(90),
      '\u0001',
      '/',
    ];
    const str = () => Array.from({ length: count(8) }, () => pick(bits)).join('');
    const value = (depth = 0): unknown => {
      const r = rnd();
      if (depth > 2 || r < 0.3) return str();
      if (r < 0.45) return count(1000) - 500;
      if (r < 0.55) return pick([true, false, null, 1.5e-7]);
      if (r < 0.75) return Array.from({ length: count(3) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: count(3) }, () => [pick(['k', 'text', 'type', 'path', str()]), value(depth + 1)]),
      );
    };
    const args = () =>
      Object.fromEntries(
        Array.from({ length: count(4) }, () => [
          pick(['path', 'file_path', 'offset', 'limit', 'command', 'pattern', 'content', str()]),
          rnd() < 0.5 ? str() : value(),
        ]),
      );
    const block = (): Record<string, unknown> => {
      const r = rnd();
      if (r < 0.5) {
        const b: Record<string, unknown> = { type: 'text', text: rnd() < 0.9 ? str() : value() };
        if (rnd() < 0.3) b[pick(['cache', 'textSignature', 'text'])] = value();
        return b;
      }
      if (r < 0.8)
        return {
          type: 'toolCall',
          id: rnd() < 0.9 ? `c${count(20)}` : value(),
          name: pick(['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls', 'mcp', str()]),
          arguments: rnd() < 0.9 ? args() : value(),
        };
      return { type: pick(['thinking', 'image']), thinking: str() };
    };
    const lines: string[] = [];
    let parent: string | null = null;
    for (let k = 0; k < 600; k++) {
      const id = `m${k}`;
      const role = pick(['user', 'assistant', 'assistant', 'toolResult']);
      const message: Record<string, unknown> =
        role === 'toolResult'
          ? {
              role,
              toolCallId: `c${count(20)}`,
              toolName: pick(['read', 'bash', str()]),
              content: [{ type: 'text', text: str() }],
              isError: false,
            }
          : { role, content: rnd() < 0.85 ? Array.from({ length: count(4) }, block) : rnd() < 0.5 ? str() : value() };
      if (role === 'assistant') {
        if (rnd() < 0.8) message.stopReason = pick(['stop', 'toolUse', 'aborted', 'error', 'length', str()]);
        if (rnd() < 0.2) message.errorMessage = rnd() < 0.7 ? str() : value();
      }
      const head = `{"type":"message","id":"${id}","parentId":${JSON.stringify(parent)},"timestamp":"2026-11-01T09:00:00.000Z","message":`;
      // spaced out: JSON with whitespace between its tokens (the strings keep theirs escaped)
      const body =
        rnd() < 0.3
          ? JSON.stringify(message, null, 1).replace(/\n/g, pick([' ', '\t', ' \r ']))
          : JSON.stringify(message);
      lines.push(`${head}${body}}\n`);
      parent = id;
    }
    const text = sessionText([]) + lines.join('');
    const { plain, withNotes, fromBytes } = await both(tempFile(text));
    assert.deepStrictEqual(withNotes, plain);
    assert.ok(fromBytes > 60, `${fromBytes} of 600 noted straight from their bytes`);
  });
});
