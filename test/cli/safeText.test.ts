// Session text must not drive the terminal: human-readable output shows controls as visible escapes
// (OSC 52 clipboard writes, OSC 8 links, title changes, bidi overrides); --json keeps the text exact.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compileWat } from '../../scripts/wasm.mjs';
import { hasUnsafeBytes, terminalBytes, terminalIO, terminalJson, unsafeByteAt } from '../../src/cli/safeText.js';
import { terminalScanWasm } from '../../src/core/scan/wasm/terminalScanBytes.js';
import { encodeCwd } from '../../src/core/session/repository.js';
import { assistant, entry, sessionText, tempDir, user } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

const OSC52 = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const OSC8 = '\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\';
const TITLE = '\u001b]0;owned\u0007';
const CSI_C1 = '\u009b2J';
const BIDI = '\u202egnp.exe\u202c \u2066x\u2069';
const EVIL = `hi ${OSC52}${OSC8}${TITLE}${CSI_C1}${BIDI}`;
// Every character a terminal or a bidi renderer would act on.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

function evilSession(): { agent: string; file: string } {
  const agent = tempDir('agent-');
  const dir = join(agent, 'sessions', encodeCwd('/w'));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '2026-11-01T09-00-00-000Z_01990000-0000-7000-8000-000000000001.jsonl');
  writeFileSync(
    file,
    sessionText(
      [
        user('u1', null, EVIL),
        assistant('a1', 'u1', EVIL, { provider: `p${TITLE}`, model: `m${BIDI}` }),
        entry('label', 'l1', 'a1', { targetId: 'a1', label: `lab${OSC52}` }),
        entry('session_info', 'n1', 'l1', { name: `name${OSC8}` }),
      ],
      {
        type: 'session',
        version: 3,
        id: '01990000-0000-7000-8000-000000000001',
        timestamp: '2026-11-01T09:00:00.000Z',
        cwd: '/w',
      },
    ) + `{"type":"message","id":"bad${'\u001b'}]52;c;eA==${'\u0007'}"\n`,
  );
  return { agent, file };
}

describe('CLI output and terminal control sequences', () => {
  it('tree, ls, stats and warnings escape C0/C1 and bidi controls', () => {
    const { agent, file } = evilSession();
    for (const args of [
      ['tree', file],
      ['tree', file, '--filter', 'all'],
      ['ls', '--cwd', '/w'],
      ['ls', '--all'],
      ['stats', file],
      ['context', file],
    ]) {
      const r = cli(args, { PI_CODING_AGENT_DIR: agent });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
      assert.doesNotMatch(r.out, UNSAFE, `${args.join(' ')} stdout`);
      assert.doesNotMatch(r.err, UNSAFE, `${args.join(' ')} stderr`);
    }
    const t = cli(['tree', file]);
    assert.match(t.out, /hi \\x1b\]52;c;cm0gLXJmIH4K\\x07/, 'shown as visible escapes, not dropped');
    assert.match(t.out, /\\u\{202e\}gnp\.exe/);
    assert.match(cli(['stats', file]).out, /p\\x1b\]0;owned\\x07\/m\\u\{202e\}/);
    // a failure whose message quotes file content
    const bad = join(tempDir(), 'x.jsonl');
    writeFileSync(bad, `{"kind":"header","version":"9${OSC52}"}\n`);
    const f = cli(['tree', bad]);
    assert.equal(f.code, 1);
    assert.doesNotMatch(f.err, UNSAFE);
  });

  it('--json output keeps the text exact', () => {
    const { agent, file } = evilSession();
    const j = JSON.parse(cli(['tree', file, '--json']).out);
    assert.ok(j.nodes.some((n: { text: string }) => n.text.includes(OSC52)));
    assert.equal(j.name, `name${OSC8}`);
    const ls = JSON.parse(cli(['ls', '--cwd', '/w', '--json'], { PI_CODING_AGENT_DIR: agent }).out);
    assert.equal(ls[0].firstMessage, EVIL);
  });

  it('the writer every command gets (main hands it terminalIO): what a command prints for a person is escaped even where it forgot to, its JSON is not', () => {
    let out = '';
    let err = '';
    const io = terminalIO({ out: (s) => (out += s.toString()), err: (s) => (err += s), env: {} });
    io.out(`text${OSC52}\tand\n`);
    io.out(Buffer.from(`bytes${CSI_C1}${BIDI}\n`));
    io.json(`${JSON.stringify({ v: `json${CSI_C1}` })}\n`);
    io.err(`err${TITLE}\n`);
    const [text, bytes, json] = out.split('\n');
    assert.equal(text, 'text\\x1b]52;c;cm0gLXJmIH4K\\x07\tand');
    assert.equal(bytes, 'bytes\\x9b2J\\u{202e}gnp.exe\\u{202c} \\u{2066}x\\u{2069}');
    assert.equal(JSON.parse(json).v, `json${CSI_C1}`, 'JSON as it is');
    assert.equal(err, 'err\\x1b]0;owned\\x07\n');
    const plain = Buffer.from('tree │ • ✓ text\n');
    assert.equal(terminalBytes(plain), plain, 'nothing to escape: the same buffer');
    assert.equal(
      terminalBytes(Buffer.from([0x61, 0x9b, 0x62])).toString(),
      'a\ufffdb',
      'not UTF-8: decoded, so no lone C1 byte passes',
    );
    assert.equal(JSON.parse(terminalJson(JSON.stringify(EVIL))), EVIL);
    assert.doesNotMatch(terminalJson(JSON.stringify(EVIL)), UNSAFE);
  });

  it('the WebAssembly scan of the writer: its committed bytes are the .wat (run `node scripts/wasm.mjs` after editing it), and it finds what the JavaScript loop finds', async () => {
    const bytes = await compileWat(join(__dirname, '..', '..', 'src', 'core', 'scan', 'wasm', 'terminalScan.wat'));
    assert.equal(bytes.toString('base64'), terminalScanWasm);
    // Bytes around the ones that matter (C0, DEL, the lead and continuation bytes of C1, U+061C, the bidi
    // marks and the separators), at any offset, across the 64 KiB windows and at the very end.
    const interesting = [
      0x00, 0x07, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x20, 0x41, 0x7e, 0x7f, 0x80, 0x81, 0x8d, 0x8e, 0x8f, 0x90, 0x9b, 0x9c,
      0x9f, 0xa0, 0xa2, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xae, 0xaf, 0xc2, 0xc3, 0xd8, 0xe2, 0xe3,
    ];
    const piece = fc.array(fc.constantFrom(...interesting), { maxLength: 24 });
    fc.assert(
      fc.property(fc.nat(70_000), piece, fc.boolean(), (at, bytes, tail) => {
        const b = Buffer.alloc(at + bytes.length + (tail ? 5 : 0), 0x41);
        b.set(bytes, at);
        assert.equal(hasUnsafeBytes(b), unsafeByteAt(b) >= 0, JSON.stringify({ at, bytes, tail }));
      }),
      { numRuns: 400 },
    );
    const longer = Buffer.alloc(3 * 65536, 0x41);
    for (const at of [0, 65533, 65534, 65535, 65536, 65537, 3 * 65536 - 3, 3 * 65536 - 2, 3 * 65536 - 1]) {
      for (const seq of [[0x1b], [0x7f], [0xc2, 0x9b], [0xd8, 0x9c], [0xe2, 0x80, 0xae], [0xe2, 0x81, 0xa6]]) {
        const b = Buffer.from(longer);
        b.set(seq.slice(0, b.length - at), at);
        assert.equal(hasUnsafeBytes(b), unsafeByteAt(b) >= 0, `${JSON.stringify(seq)} at ${at}`);
      }
    }
  });
});
