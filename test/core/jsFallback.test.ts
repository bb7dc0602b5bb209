// The reader without WebAssembly (a runtime without it or without SIMD, or PI_TREE_WASM=0): the JS
// validator decides every line, and what is read is exactly what the WebAssembly path reads, on
// generated sessions with damaged lines and on the real fixtures; the fast path still agrees with
// JSON.parse line by line. And the shipped module is what the pinned assembler makes of the text, and
// it is in the bundles that ship (npm test builds them first).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { BufferSource } from '../../src/core/byteSource.js';
import { classifyLine, readSession } from '../../src/core/reader.js';
import { WASM_BASE64 } from '../../src/core/wasm/jsonValid.wasm.js';
import { setWasmEnabled, wasmScanValue } from '../../src/core/wasmValid.js';
import { generateSession } from '../support/generate.js';

/** Everything the reader decided about a file, record by record. */
async function readAll(text: Buffer) {
  const { index } = await readSession(new BufferSource(() => text));
  const recs = [];
  for (let i = 0; i < index.count; i++) recs.push([index.idOf(i), index.parentIdOf(i), index.typeOf(i), index.roleOf(i), index.timeOf(i), index.offsetOf(i), index.lengthOf(i), index.lineBits(i)]);
  return { recs, diagnostics: index.diagnostics, leaf: index.leafId, labels: [...index.labels] };
}

/** A generated session with some lines damaged (cut, spliced, bad escapes, duplicate keys). */
function damaged(seed: number): Buffer {
  const lines = generateSession({ seed, entries: 400, branchRate: 0.05, largeOutputRate: 0.05 }).text.split('\n');
  let r = seed;
  const rnd = () => (r = (r * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let k = 1; k < lines.length - 1; k++) {
    const x = rnd();
    const l = lines[k];
    if (x < 0.02) lines[k] = l.slice(0, Math.floor(rnd() * l.length));
    else if (x < 0.04) lines[k] = l.replace('"content":', '"content":"\\x",');
    else if (x < 0.06) lines[k] = l.replace('"role":', '"role":"user","role":');
    else if (x < 0.07) lines[k] = l.replace('}', '},');
  }
  return Buffer.from(lines.join('\n'));
}

describe('without WebAssembly', () => {
  after(() => setWasmEnabled(true));

  it('the switch turns the WebAssembly validator off (and on again)', () => {
    const b = Buffer.from('{"a":1}');
    setWasmEnabled(true);
    assert.equal(wasmScanValue(b, 0, b.length, false), b.length);
    setWasmEnabled(false);
    assert.equal(wasmScanValue(b, 0, b.length, false), undefined, 'off: the JS validator decides');
    setWasmEnabled(true);
  });

  it('reads what the WebAssembly path reads: generated sessions with damaged lines, the real fixtures', async () => {
    const fixtures = join(__dirname, '..', 'fixtures', 'real');
    const files = [
      ...[1, 2, 3, 4, 5].map(damaged),
      ...readdirSync(fixtures)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => readFileSync(join(fixtures, f))),
    ];
    let fast = 0;
    for (const text of files) {
      setWasmEnabled(true);
      const withWasm = await readAll(text);
      setWasmEnabled(false);
      const withoutWasm = await readAll(text);
      assert.deepEqual(withoutWasm, withWasm);
      fast += withWasm.recs.filter((r) => (r[7] as number) !== 0).length;
    }
    setWasmEnabled(true);
    assert.ok(fast > 1000, `the fast path took ${fast} lines (it must be exercised)`);
  });

  it('the fast path keeps exactly the lines JSON.parse keeps', () => {
    setWasmEnabled(false);
    const base = JSON.stringify({
      type: 'message',
      id: 'abcd1234',
      parentId: 'ffff0000',
      timestamp: '2026-11-01T09:00:00.000Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'hi "there" \\ x' }], usage: { input: 1 } },
    });
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom('', '"', '\\', '\\u12', '{', '}', '[', ']', ',', ':', '\u0001', 'tru', '"role":"user",'), fc.nat({ max: 3 }), (at, s, cut) => {
        const k = at % (base.length + 1);
        const line = base.slice(0, k) + s + base.slice(k + cut);
        const b = Buffer.from(line, 'utf8');
        let id: unknown;
        try {
          const v = JSON.parse(line) as { id?: unknown; type?: unknown };
          const kept = typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v.type === 'string' && v.type !== 'session' && typeof v.id === 'string' && v.id !== '';
          id = kept ? v.id : undefined;
        } catch {
          id = undefined;
        }
        assert.equal(classifyLine(b, 0, b.length, 1, 0, [])?.id, id, line);
      }),
      { numRuns: 3000 },
    );
    setWasmEnabled(true);
  });

  it('the shipped module is what wabt (pinned) assembles from jsonValid.wat: a reproducible build', async () => {
    const wabt = await (await import('wabt')).default();
    const text = readFileSync(join(__dirname, '../../src/core/wasm/jsonValid.wat'), 'utf8');
    const mod = wabt.parseWat('jsonValid.wat', text, { simd: true });
    mod.validate();
    const bytes = Buffer.from(mod.toBinary({}).buffer);
    mod.destroy();
    assert.equal(bytes.toString('base64'), WASM_BASE64);
  });

  it('the bundles that read sessions carry the module (the extension, its projection worker, the CLI)', () => {
    for (const f of ['extension.js', 'projector.js', 'cli.js']) assert.ok(readFileSync(join(__dirname, '../../dist', f), 'utf8').includes(WASM_BASE64), `dist/${f}`);
  });
});
