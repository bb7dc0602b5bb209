// A crafted session whose fields are objects that cannot become text ({"toString":1} makes String(),
// Number(), template strings and new Date() throw): every reader shows it, none stops, and one such file
// does not stop a listing of the others.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli.js';
import { listContext } from '../../../src/core/context/contextView.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { asNumber, asText } from '../../../src/core/format/values.js';
import { projectAll } from '../../../src/host/projection/projection.js';
import { firstScreenNodes } from '../../../src/host/projection/firstScreen.js';
import { tempDir } from '../../support/tmp.js';

const O = { toString: 1 };
const ts = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
let n = 0;
const e = (fields: Record<string, unknown>) => ({
  id: `e${++n}`,
  parentId: n > 1 ? `e${n - 1}` : null,
  timestamp: ts(n),
  ...fields,
});
const hostile = () => {
  n = 0;
  const usage = { input: O, output: O, totalTokens: O, cost: { total: O } };
  return [
    e({ type: 'message', message: { role: 'user', content: 'hello', timestamp: 1 } }),
    e({ type: 'model_change', provider: O, modelId: O }),
    e({ type: 'thinking_level_change', thinkingLevel: O }),
    e({
      type: 'message',
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: O },
          { type: 'toolCall', id: O, name: O, arguments: { path: O } },
        ],
        provider: O,
        model: O,
        usage,
        stopReason: O,
        timestamp: 2,
      },
    }),
    e({
      type: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 't1', name: 'bash', arguments: { command: O } }],
        usage,
        stopReason: 'toolUse',
        timestamp: 3,
      },
    }),
    e({
      type: 'message',
      message: {
        role: 'toolResult',
        toolCallId: O,
        toolName: O,
        content: [{ type: 'text', text: O }],
        isError: false,
        timestamp: 4,
      },
    }),
    e({ type: 'message', message: { role: 'bashExecution', command: O, output: O, exitCode: 0, timestamp: 5 } }),
    e({ type: 'label', targetId: 'e1', label: O }),
    e({ type: 'session_info', name: O }),
    e({ type: 'custom_message', customType: O, content: 'x', display: true }),
    e({ type: 'branch_summary', summary: O, fromId: 'e1' }),
    e({ type: 'compaction', summary: O, firstKeptEntryId: 'e1', tokensBefore: O }),
    e({ type: 'message', timestamp: O, message: { role: 'user', content: 'last', timestamp: 6 } }),
  ];
};

describe('fields that cannot become text', () => {
  it('asText and asNumber are String() and Number() for anything else', () => {
    for (const v of ['a', 1, null, undefined, true, [1, 2], { a: 1 }]) {
      assert.equal(asText(v), String(v));
      assert.ok(Object.is(asNumber(v), Number(v)));
    }
    assert.equal(asText(O), '[object]');
    assert.ok(Number.isNaN(asNumber(O)));
  });

  it('tree, context, stats, export, the panel and the listing show a crafted session instead of stopping', async () => {
    const dir = tempDir('pi-tree-hostile-');
    const file = join(dir, 'hostile.jsonl');
    const header = { type: 'session', version: 3, id: 'h', timestamp: ts(0), cwd: '/x' };
    writeFileSync(file, [header, ...hostile()].map((x) => JSON.stringify(x)).join('\n') + '\n');
    // a header that cannot be read as a time or a folder, beside a good session
    writeFileSync(
      join(dir, 'odd-header.jsonl'),
      [{ ...header, id: 'o', timestamp: O, cwd: O }, ...hostile()].map((x) => JSON.stringify(x)).join('\n') + '\n',
    );
    const last = `e${n}`;
    for (const argv of [
      ['tree'],
      ['tree', '--json'],
      ['context', '--json'],
      ['stats', '--json'],
      ['export', last],
      ['files'],
      ['compare', 'e1', last],
    ]) {
      let err = '';
      let out = '';
      const code = await main([argv[0], file, ...argv.slice(1)], {
        out: (s) => (out += s.toString()),
        err: (s) => (err += s),
        env: {},
      });
      assert.equal(code, 0, `${argv.join(' ')}: ${err}`);
      if (argv.length === 1 && argv[0] === 'tree')
        assert.match(out, /assistant: \[object\]\n.*\[\[object\]: \{"path":\{"toString":1\}\}\]/);
    }
    const s = await Session.open(file);
    assert.equal((await projectAll(s.index, s.index.live(), s)).length, n);
    assert.ok((await firstScreenNodes(s)).length > 0);
    assert.ok((await listContext(s, s.leafId)).messages.length > 0);
    const listed = await new SessionRepository({ sessionDir: dir, env: {} }).listAll();
    assert.deepEqual(listed.map((i) => i.id).sort(), ['h', 'o'], 'both listed');
    const odd = listed.find((i) => i.id === 'o')!;
    assert.equal(odd.cwd, '');
    assert.ok(!Number.isNaN(odd.created.getTime()) && !Number.isNaN(odd.modified.getTime()), 'valid dates');
  });
});
