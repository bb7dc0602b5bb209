// Session text must not drive the terminal: human-readable output shows controls as visible escapes
// (OSC 52 clipboard writes, OSC 8 links, title changes, bidi overrides); --json keeps the text exact.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
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
      { type: 'session', version: 3, id: '01990000-0000-7000-8000-000000000001', timestamp: '2026-11-01T09:00:00.000Z', cwd: '/w' },
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
});
