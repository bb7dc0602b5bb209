// The CLI contract, run as users run it: the built dist/cli.js in its own process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import * as commands from '../src/cli/commands.js';
import { encodeCwd } from '../src/core/session/repository.js';
import { generateSession } from './support/generate.js';
import { loadPi } from './support/pi.js';
import { assistant, lines, sessionText, tempDir, tempFile, user } from './support/tmp.js';

const CLI = join(__dirname, '..', 'dist', 'cli.js');

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 28,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const base = () =>
  sessionText([
    user('u1', null, 'one'),
    assistant('a1', 'u1', 'r1'),
    user('u2', 'a1', 'two'),
    assistant('a2', 'u2', 'r2'),
  ]);

describe('pi-tree CLI', () => {
  it('--version prints the package version (it printed "dev")', () => {
    const r = cli(['--version']);
    assert.equal(r.code, 0);
    assert.equal(r.out.trim(), JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version);
  });

  it('usage errors exit 2; failures exit 1 with one line and no stack', () => {
    assert.equal(cli([]).code, 2);
    assert.equal(cli(['bogus']).code, 2);
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      const r = cli([name, 'x']);
      assert.equal(r.code, 2, name);
      assert.match(r.err, new RegExp(`unknown command "${name}"`));
    }
    assert.equal(cli(['tree']).code, 2);
    assert.equal(cli(['context', 'x', '--nope']).code, 2);
    // help for one command: its usage line(s), exit 0
    const h = cli(['summarize', '--help']);
    assert.equal(h.code, 0);
    assert.match(h.out, /^ {2}pi-tree summarize FILE TARGET_ID/);
    assert.match(h.out, /model-written branch summary\n$/);
    assert.doesNotMatch(h.out, /pi-tree compact/);
    const r = cli(['tree', '/definitely/not/here.jsonl']);
    assert.equal(r.code, 1);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.doesNotMatch(r.err, /\n\s+at /);
    const bad = cli(['tree', tempFile('not a session\n')]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /no pi session header/);
    const unknown = cli(['move', tempFile(base()), 'zzzzzzzz']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /Entry zzzzzzzz not found/);
  });

  it('context --json equals pi buildSessionContext; --leaf picks another leaf', async () => {
    const g = generateSession({ seed: 5, entries: 1500, branchRate: 0.05, compactions: 1 });
    const file = tempFile(g.text);
    const r = cli(['context', file, '--json']);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    const { SessionManager } = await loadPi();
    const sm = SessionManager.open(tempFile(g.text));
    assert.equal(out.leafId, sm.getLeafId());
    assert.equal(JSON.stringify(out.messages), JSON.stringify(sm.buildSessionContext().messages));
    assert.deepStrictEqual(
      out.path,
      sm.getBranch().map((e: { id: string }) => e.id),
    );
    assert.equal(out.thinkingLevel, sm.buildSessionContext().thinkingLevel);
    const leaf = g.entries[200].id as string;
    const r2 = JSON.parse(cli(['context', file, '--leaf', leaf, '--json']).out);
    sm.branch(leaf);
    assert.equal(JSON.stringify(r2.messages), JSON.stringify(sm.buildSessionContext().messages));
    assert.equal(r2.path[r2.path.length - 1], leaf);
  });

  it('big files (over 16 MB, read in many chunks) give the same output as pi', async () => {
    const g = generateSession({ seed: 8, entries: 20000, branchRate: 0.03, compactions: 1, largeOutputRate: 0.05 });
    assert.ok(g.text.length > 16 * 1024 * 1024, `${g.text.length} bytes`);
    const file = tempFile(g.text);
    const r = cli(['context', file, '--json']);
    assert.equal(r.code, 0, r.err);
    const { SessionManager } = await loadPi();
    assert.equal(
      JSON.stringify(JSON.parse(r.out).messages),
      JSON.stringify(SessionManager.open(file).buildSessionContext().messages),
    );
    const t = cli(['tree', file, '--filter', 'user-only']);
    assert.equal(t.code, 0, t.err);
    assert.ok(t.out.split('\n').length > 100);
    assert.equal(cli(['move', file, 'nope']).code, 1);
    // The whole tree, megabytes of text: the process reuses its output buffer once stdout has written
    // it; in a process of its own and in-process (a new buffer each time) it must read the same.
    const whole = cli(['tree', file]);
    assert.equal(whole.code, 0, whole.err);
    assert.ok(Buffer.byteLength(whole.out) > 2 << 20, `${Buffer.byteLength(whole.out)} bytes`);
    const parts: Buffer[] = [];
    const code = await commands.tree([file], {
      out: (x) => void parts.push(Buffer.from(x)),
      json: () => assert.fail('no JSON'),
      err: () => undefined,
      env: process.env,
    });
    assert.equal(code, 0);
    assert.ok(Buffer.concat(parts).toString('utf8') === whole.out, 'the same text either way');
  });

  it('tree: text like pi /tree and --json with the current path', () => {
    const file = tempFile(base() + `${JSON.stringify(user('u3', 'a1', 'three'))}\n`);
    cli(['label', file, 'u1', 'start']);
    const t = cli(['tree', file]);
    assert.equal(t.code, 0, t.err);
    assert.match(t.out, /u1 {2}• \[start\] user: one/);
    assert.match(t.out, /u3 {2}├─ • user: three {2}← active/);
    assert.match(t.out, /u2 {2}└─ user: two/);
    cli(['move', file, 'a1']);
    const j = JSON.parse(cli(['tree', file, '--json']).out);
    assert.deepStrictEqual(j.path, ['u1', 'a1']);
    assert.equal(j.nodes.find((n: { id: string }) => n.id === 'u1').label, 'start');
  });

  it('a file of 200,000 unreadable lines: tree and stats answer (no stack overflow), tree names the first 20 problems', () => {
    const file = tempFile(base() + Array.from({ length: 200_000 }, (_, i) => `garbage ${i}`).join('\n') + '\n');
    const t = cli(['tree', file]);
    assert.equal(t.code, 0, t.err.slice(0, 300));
    assert.match(t.out, /user: two/);
    const warnings = t.err.trim().split('\n');
    assert.equal(warnings.length, 21);
    assert.equal(warnings[0], 'warning: line 6: Line 6 is not valid JSON and was skipped.');
    assert.equal(warnings[20], 'warning: and 199980 more');
    assert.equal(cli(['stats', file, '--json']).code, 0);
  });

  it('move, move root, move with summary, label, name write what pi writes', () => {
    const file = tempFile(base());
    assert.equal(cli(['move', file, 'u1', '--exact']).code, 0);
    let last = lines(file).pop()!;
    assert.equal(last.type, 'leaf');
    assert.equal(last.parentId, 'u1');
    cli(['move', file, 'root']);
    last = lines(file).pop()!;
    assert.equal(last.targetId, null);
    cli(['move', file, 'a1', '--summary-text', 'went elsewhere']);
    const [rec, bs] = lines(file).slice(-2);
    assert.equal(rec.type, 'leaf');
    assert.equal(bs.type, 'branch_summary');
    assert.equal(bs.fromId, 'root');
    assert.equal(bs.summary, 'went elsewhere');
    cli(['label', file, 'u2', 'x']);
    assert.equal(lines(file).pop()!.label, 'x');
    cli(['label', file, 'u2']);
    assert.equal('label' in lines(file).pop()!, false);
    cli(['name', file, 'My name']);
    assert.equal(lines(file).pop()!.name, 'My name');
    const before = readFileSync(file);
    assert.equal(cli(['move', file, 'nope']).code, 1);
    assert.deepStrictEqual(readFileSync(file), before);
  });

  it("move follows pi's /tree rule (a user message: leaf on its parent, text handed back); --exact moves onto the id", () => {
    const file = tempFile(base());
    const r = cli(['move', file, 'u2']);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).editorText, 'two');
    assert.equal(JSON.parse(r.out).leafId, 'a1');
    assert.equal(lines(file).pop()!.targetId, 'a1');
    assert.equal(cli(['move', file, 'u1']).code, 0);
    assert.equal(lines(file).pop()!.targetId, null, 'the first user message: back to the root, as pi');
    const x = cli(['move', file, 'u2', '--exact']);
    assert.equal(x.code, 0, x.err);
    assert.equal(JSON.parse(x.out).editorText, undefined);
    assert.equal(lines(file).pop()!.targetId, 'u2');
    assert.equal(cli(['move', file, 'a2']).code, 0);
    assert.equal(lines(file).pop()!.targetId, 'a2', 'other entries: the entry itself');
  });

  it('fork and clone print new files in the same directory; ls lists them; stats', () => {
    const agent = tempDir('agent-');
    const cwd = '/work/proj';
    const dir = join(agent, 'sessions', encodeCwd(cwd));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, '2026-11-01T09-00-00-000Z_01990000-0000-7000-8000-000000000001.jsonl');
    writeFileSync(file, base().replace('"cwd":"/home/dev/project"', `"cwd":"${cwd}"`));
    const f = cli(['fork', file, 'u2'], { PI_CODING_AGENT_DIR: agent });
    assert.equal(f.code, 0, f.err);
    const forked = f.out.trim();
    assert.equal(dirname(forked), dir);
    assert.deepStrictEqual(
      lines(forked)
        .slice(1)
        .map((e) => e.id),
      ['u1', 'a1'],
    );
    const c = cli(['clone', file, 'a1'], { PI_CODING_AGENT_DIR: agent });
    assert.equal(c.code, 0, c.err);
    assert.equal(lines(c.out.trim())[0].parentSession, file);
    const ls = JSON.parse(cli(['ls', '--cwd', cwd, '--json'], { PI_CODING_AGENT_DIR: agent }).out);
    assert.equal(ls.length, 3);
    assert.equal(JSON.parse(cli(['ls', '--all', '--json'], { PI_CODING_AGENT_DIR: agent }).out).length, 3);
    assert.match(cli(['ls', '--cwd', '/elsewhere'], { PI_CODING_AGENT_DIR: agent }).out, /No pi sessions/);
    const st = JSON.parse(cli(['stats', file, '--json']).out);
    assert.equal(st.entries, 4);
    assert.equal(st.messages, 4);
    assert.equal(st.tokens.total, 30);
    assert.deepStrictEqual(st.models, [{ provider: 'anthropic', model: 'claude-x', messages: 2 }]);
  });
});
