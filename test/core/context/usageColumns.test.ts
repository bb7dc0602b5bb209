// Usage figures noted while a session is read (what `pi-tree stats` does, src/core/usageColumns.ts):
// the stats come out exactly as when every figure is read again from the file afterwards, and the
// noting really takes the lines in pi's shape (so these comparisons test it).
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readUsageFacts, UsageFacts } from '../../../src/core/scan/messageFacts.js';
import { Session } from '../../../src/core/session/session.js';
import { computeStats } from '../../../src/core/context/stats.js';
import { noteUsage, UsageColumns } from '../../../src/core/context/usageColumns.js';
import { generateSession } from '../../support/generate.js';
import { assistant, sessionText, tempDir, tempFile, user } from '../../support/tmp.js';

/** Stats of `file` read plainly and with its figures noted while read; and how many were noted. */
async function both(file: string) {
  const plain = await computeStats(await Session.open(file));
  const cols = new UsageColumns();
  const s = await Session.open(file, { onMessageLine: noteUsage(cols) });
  let noted = 0;
  for (let i = 0; i < s.index.count; i++) if (cols.has(i)) noted++;
  const withNotes = await computeStats(s, undefined, cols);
  return {
    plain,
    withNotes,
    noted,
    carriers: (plain.messagesByRole.assistant ?? 0) + (plain.messagesByRole.toolResult ?? 0),
  };
}

/** What readUsageFacts fills. */
const facts = new UsageFacts();

describe('usage noted while reading', () => {
  it('generated sessions in pi shape: the same stats, every assistant and toolResult line noted', async () => {
    for (const [seed, entries] of [
      [1, 300],
      [2, 3000],
      [3, 12_000],
    ]) {
      const g = generateSession({ seed, entries, branchRate: 0.05, compactions: 3, labels: 4 });
      const { plain, withNotes, noted, carriers } = await both(tempFile(g.text));
      assert.deepStrictEqual(withNotes, plain);
      assert.ok(
        plain.toolCalls > 0 && plain.tokens.total > 0 && plain.models.length > 0,
        'the session has figures to sum',
      );
      // (a line across two 1 MiB reads is put together outside the validator's memory: read again later)
      const across = Math.floor(Buffer.byteLength(g.text) / (1 << 20));
      assert.ok(
        noted >= carriers - across && noted <= carriers,
        `seed ${seed}: ${noted} of ${carriers} carriers noted`,
      );
    }
  });

  it("pi's author's real files (v1, migrated in memory): nothing to note, the same stats", async () => {
    for (const real of ['pi-mono-large-session.v1.jsonl', 'pi-mono-before-compaction.jsonl']) {
      const file = join(tempDir(), real);
      copyFileSync(join(__dirname, '..', '..', 'fixtures', 'real', real), file);
      const { plain, withNotes, noted } = await both(file);
      assert.deepStrictEqual(withNotes, plain, real);
      assert.equal(noted, 0, real);
    }
  });

  it('lines off the usual shape are read again from the file, in their place: the sums stay exact', async () => {
    const u = (input: number, total: number) => ({
      input,
      output: 3,
      cacheRead: 1,
      cacheWrite: 0,
      totalTokens: input + 4,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
    });
    const lines = [
      user('u1', null, 'hi'),
      assistant('a1', 'u1', 'plain', { usage: u(10, 0.1) }),
      // an escaped key (the validator cannot tell what it spells)
      assistant('a2', 'a1', 'escaped', { usage: u(20, 0.2), model: 'm2' }),
      // a toolCall block whose type is written with an escape
      { ...assistant('a3', 'a2', 'x', { usage: u(30, 0.30000000000000004) }), __raw: 'tool\\u0043all' },
      // usage keys in another order, a float, an exponent, a negative figure
      assistant('a4', 'a3', 'odd', { usage: { cost: { total: 1e-7 }, output: 2.5, input: -4, cacheRead: 1e3 } }),
      // usage that is not an object, provider and model that are not strings
      assistant('a5', 'a4', 'odd', { usage: [1, 2], provider: 7, model: null }),
      assistant('a6', 'a5', 'dup', { usage: u(60, 0.6) }),
      {
        type: 'message',
        id: 't1',
        parentId: 'a6',
        timestamp: '2026-11-01T09:10:00.000Z',
        message: {
          role: 'toolResult',
          toolCallId: 'c',
          toolName: 'read',
          content: [{ type: 'text', text: 'r' }],
          isError: false,
          timestamp: 1,
          usage: u(5, 0.05),
        },
      },
    ];
    let text = sessionText(lines.map(({ __raw, ...e }) => e));
    // the a3 line gets a toolCall block typed with an escape, a6 a second usage key (the last one counts), a2 an escaped key
    text = text.replace(
      '"content":[{"type":"text","text":"x"}]',
      '"content":[{"type":"text","text":"x"},{"type":"tool\\u0043all","id":"c","name":"n","arguments":{}}]',
    );
    text = text.replace(/("id":"a6".*?"usage":)/, '$1{"input":999},"usage":');
    text = text.replace('"model":"m2"', '"mod\\u0065l":"m2"');
    // the last line without its newline is read by JavaScript, not the WebAssembly validator
    text += JSON.stringify(assistant('a7', 't1', 'tail', { usage: u(70, 0.7) }));
    const { plain, withNotes, noted } = await both(tempFile(text));
    assert.deepStrictEqual(withNotes, plain);
    assert.equal(plain.toolCalls, 1);
    assert.equal(plain.tokens.input, 10 + 20 + 30 - 4 + 60 + 5 + 70);
    // a1, a4, a6 and t1; not a2 (escaped key), a3 (escaped type), a5 (provider not a string), a7 (JavaScript)
    assert.equal(noted, 4);
  });

  it("a usage object in pi's layout is read as JSON.parse reads it, whatever its figures", () => {
    const figure = fc.oneof(
      fc.integer({ min: -1e6, max: 1e15 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constant(0),
      fc.constant(1e21),
      fc.constant(-0),
    );
    fc.assert(
      fc.property(fc.array(figure, { minLength: 10, maxLength: 10 }), fc.boolean(), (f, toolCall) => {
        const usage = {
          input: f[0],
          output: f[1],
          cacheRead: f[2],
          cacheWrite: f[3],
          totalTokens: f[4],
          cost: { input: f[5], output: f[6], cacheRead: f[7], cacheWrite: f[8], total: f[9] },
        };
        const message = {
          role: 'assistant',
          content: toolCall ? [{ type: 'toolCall', id: 'c', name: 'n', arguments: {} }] : [],
          provider: 'p',
          model: 'm',
          usage,
        };
        const b = Buffer.from(JSON.stringify(message));
        assert.ok(readUsageFacts(b, 0, facts));
        const v = JSON.parse(b.toString()) as typeof message;
        const num = (x: number) => (Number.isFinite(x) ? x : 0);
        assert.deepStrictEqual(
          [facts.input, facts.output, facts.cacheRead, facts.cacheWrite, facts.cost, facts.toolCalls],
          [
            num(v.usage.input),
            num(v.usage.output),
            num(v.usage.cacheRead),
            num(v.usage.cacheWrite),
            num(v.usage.cost.total),
            toolCall ? 1 : 0,
          ],
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('decimal figures written any way JSON allows are read as Number() reads them', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
    const decimal = fc
      .tuple(
        fc.boolean(),
        fc.oneof(
          fc.constant('0'),
          fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 12)).map(([a, b]) => `${a}${b}`),
        ),
        fc.option(digits(1, 20)),
        fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))),
      )
      .map(
        ([neg, int, frac, exp]) =>
          `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : exp.join('')}`,
      );
    fc.assert(
      fc.property(decimal, decimal, (a, total) => {
        const b = Buffer.from(
          `{"role":"assistant","usage":{"input":${a},"output":1,"cacheRead":2,"cacheWrite":3,"totalTokens":6,"cost":{"input":${a},"output":0,"cacheRead":0,"cacheWrite":0,"total":${total}}}}`,
        );
        assert.ok(readUsageFacts(b, 0, facts));
        const num = (t: string) => (Number.isFinite(Number(t)) ? Number(t) : 0);
        assert.ok(Object.is(facts.input, num(a)), `${a}: ${facts.input}`);
        assert.ok(Object.is(facts.cost, num(total)), `${total}: ${facts.cost}`);
      }),
      { numRuns: 20000 },
    );
  });
});
