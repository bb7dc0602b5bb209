// Every command `pi-tree --help` lists, run as users run it (the built CLI, an argument array) on one
// hostile session: ids, the cwd, names, labels, paths, texts and model names full of OSC 52 clipboard
// writes, title changes, screen clears, CSI as the C1 byte, bidi overrides. Nothing a terminal would act
// on may reach stdout or stderr of a human-readable command; the JSON a command prints keeps the values
// exact. The replies of a running pi (entryId, sessionFile) come from a fake bridge: pi's ids are hex.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { USAGE } from '../../src/cli.js';
import { ensurePrivateDir } from '../../src/core/platform/privateDir.js';
import { encodeCwd } from '../../src/core/session/repository.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { assistant, entry, sessionText, tempDir, user } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

// OSC 52 (clipboard), OSC 0 (title), CSI 2J (clear) as ESC [ and as the C1 byte, a bare CR, DEL, bidi.
const X = '\u001b]52;c;cm0gLXJmIH4K\u0007\u001b]0;owned\u0007\u001b[2J\u009b2J\r\u007f\u202e\u2066';
const id = (s: string) => `${s}${X}`;
// (file content with a CR is not restorable: the diff shows no patch for it)
const NO_CR = X.replace('\r', '');
// Raw bytes a terminal acts on: C0 but \n and \t, DEL; then, in the decoded text, C1 and bidi.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_BYTE = /[\x00-\x08\x0b-\x1f\x7f]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CHAR = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

interface Run {
  code: number | null;
  out: string;
  err: string;
  rawOut: Buffer;
  rawErr: Buffer;
}

/** The built CLI in a child process (asynchronous: the fake bridge and the model answer in this one). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (b: Buffer) => out.push(b));
    p.stderr.on('data', (b: Buffer) => err.push(b));
    p.on('error', reject);
    p.on('close', (code) => {
      const rawOut = Buffer.concat(out);
      const rawErr = Buffer.concat(err);
      resolve({ code, out: rawOut.toString('utf8'), err: rawErr.toString('utf8'), rawOut, rawErr });
    });
  });
}

function assertInert(r: Run, what: string): void {
  for (const [name, raw, text] of [
    ['stdout', r.rawOut, r.out],
    ['stderr', r.rawErr, r.err],
  ] as const) {
    assert.ok(isUtf8(raw), `${what}: ${name} is UTF-8`);
    const b = RAW_BYTE.exec(raw.toString('latin1'));
    assert.equal(
      b,
      null,
      `${what}: raw control byte 0x${b?.[0].charCodeAt(0).toString(16)} in ${name}: ${JSON.stringify(text.slice(0, 400))}`,
    );
    const c = RAW_CHAR.exec(text);
    assert.equal(
      c,
      null,
      `${what}: raw U+${c?.[0].charCodeAt(0).toString(16)} in ${name}: ${JSON.stringify(text.slice(0, 400))}`,
    );
  }
}

const CWD = `/w${X}`;

/** A session in pi's layout whose every string is hostile: two branches, edits, bash, a summary, a label, a name. */
function hostileSession(agent: string): string {
  const dir = join(agent, 'sessions', encodeCwd(CWD));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '2026-11-01T09-00-00-000Z_01990000-0000-7000-8000-00000000000a.jsonl');
  const model = { provider: `p${X}`, model: `m${X}`, stopReason: 'toolUse' };
  const call = (cid: string, name: string, args: Record<string, unknown>) => ({
    type: 'toolCall',
    id: cid,
    name,
    arguments: args,
  });
  const withCalls = (e: Record<string, unknown>, calls: object[]) => {
    const m = e.message as { content: object[] };
    m.content.push(...calls);
    return e;
  };
  const result = (rid: string, parent: string, cid: string, name: string) =>
    entry('message', rid, parent, {
      message: {
        role: 'toolResult',
        toolCallId: cid,
        toolName: name,
        content: [{ type: 'text', text: `ok ${X}` }],
        isError: false,
        timestamp: 1,
      },
    });
  writeFileSync(
    file,
    sessionText(
      [
        user(id('u1'), null, `hello ${X}`),
        withCalls(assistant(id('a1'), id('u1'), `edit ${X}`, model), [
          call(id('c1'), 'edit', { path: `src/f${X}.ts`, oldText: 'a', newText: `b${X}` }),
        ]),
        result(id('r1'), id('a1'), id('c1'), 'edit'),
        user(id('u2'), id('r1'), `branch A ${X}`),
        withCalls(assistant(id('a2'), id('u2'), `bash ${X}`, model), [
          call(id('c2'), 'bash', { command: `echo hi > g${X}.txt` }),
        ]),
        result(id('r2'), id('a2'), id('c2'), 'bash'),
        user(id('u3'), id('r1'), `branch B ${X}`),
        withCalls(assistant(id('a3'), id('u3'), `write ${X}`, model), [
          call(id('c3'), 'write', { path: `h${X}.txt`, content: `first ${NO_CR}\n` }),
        ]),
        result(id('r3'), id('a3'), id('c3'), 'write'),
        withCalls(assistant(id('a5'), id('r3'), `rewrite ${X}`, model), [
          call(id('c5'), 'write', { path: `h${X}.txt`, content: `second ${NO_CR}\n` }),
        ]),
        result(id('r5'), id('a5'), id('c5'), 'write'),
        entry('branch_summary', id('s1'), id('r5'), { fromId: id('r2'), summary: `left A ${X}` }),
        entry('model_change', id('m1'), id('s1'), { provider: `p${X}`, modelId: `m${X}` }),
        entry('thinking_level_change', id('t1'), id('m1'), { thinkingLevel: `high${X}` }),
        entry('custom_message', id('x1'), id('t1'), { customType: `ext${X}`, content: `custom ${X}`, display: true }),
        user(id('u4'), id('x1'), `last ${X}`),
        assistant(id('a4'), id('u4'), `done ${X}`, { ...model, stopReason: 'error', errorMessage: `boom ${X}` }),
        entry('label', id('l1'), id('a4'), { targetId: id('a3'), label: `lab${X}` }),
        entry('session_info', id('n1'), id('l1'), { name: `name${X}` }),
      ],
      {
        type: 'session',
        version: 3,
        id: '01990000-0000-7000-8000-00000000000a',
        timestamp: '2026-11-01T09:00:00.000Z',
        cwd: CWD,
      },
    ),
  );
  return file;
}

/**
 * A fake pi for the replies (pi's own ids are hex): a process titled "pi" whose bridge writes into the
 * session what it says it did, as pi does (so pi-tree's checks of the peer and of the effect pass), and
 * answers with ids and a new session's path full of control characters. After fork or clone it runs
 * the new session, announced by a record of its own.
 */
const FAKE_PI = `
const net = require('node:net'), fs = require('node:fs'), path = require('node:path'), crypto = require('node:crypto');
const [dir, sessionFile, X] = process.argv.slice(1);
process.title = 'pi';
const token = crypto.randomBytes(32).toString('hex');
const append = (e) => fs.appendFileSync(sessionFile, JSON.stringify({ timestamp: new Date().toISOString(), ...e }) + '\\n');
let n = 0;
function serve(file, done) {
  const stem = process.pid + '-' + crypto.randomBytes(4).toString('hex');
  const endpoint = path.join(dir, stem + '.sock');
  const reply = (m, s) => {
    switch (m.op) {
      case 'state': case 'subscribe': return { protocol: 1, piVersion: '1.6.0', pid: process.pid, sessionFile: file, sessionId: 's', leafId: null, busy: false };
      case 'goto': append({ type: 'leaf', id: 'pi-rec' + X, parentId: m.targetId, targetId: m.targetId }); return { moved: true, previousLeafId: null, leafId: m.targetId, leafRecordId: 'pi-rec' + X };
      case 'label': append({ type: 'label', id: 'pi-label' + X, parentId: null, targetId: m.entryId, label: m.label }); return { changed: true, entryId: 'pi-label' + X };
      case 'name': append({ type: 'session_info', id: 'pi-name' + X, parentId: null, name: m.name }); return { changed: true, entryId: 'pi-name' + X };
      case 'ask': {
        // pi's turn: a prompt and an answer appended, then the end pushed after this reply
        const u = 'pi-u' + X, a = 'pi-a' + X, askId = 'ask' + (n++);
        append({ type: 'message', id: u, parentId: m.targetId, message: { role: 'user', content: [{ type: 'text', text: m.prompt }] } });
        append({ type: 'message', id: a, parentId: u, message: { role: 'assistant', content: [{ type: 'text', text: 'answer ' + X }], stopReason: 'stop' } });
        setImmediate(() => s.write(JSON.stringify({ event: 'askEnded', askId, leafId: a, entryIds: [u, a], answerId: a, aborted: false }) + '\\n'));
        return { askId, previousLeafId: null, fromLeafId: m.targetId };
      }
      case 'fork': case 'clone': { const next = path.join(path.dirname(sessionFile), m.op + (n++) + X + '.jsonl'); fs.writeFileSync(next, ''); serve(next); return { cancelled: false, sessionFile: next }; }
    }
    return {};
  };
  net.createServer((s) => {
    let buf = '';
    s.on('error', () => {});
    s.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\\n'); i >= 0; i = buf.indexOf('\\n')) {
        const m = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (m.op === 'label' && m.label === 'fail') s.write(JSON.stringify({ id: m.id, ok: false, code: 'failed', error: 'pi says ' + X }) + '\\n');
        else s.write(JSON.stringify({ id: m.id, ok: true, data: reply(m, s) }) + '\\n');
      }
    });
  }).listen(endpoint, () => {
    fs.chmodSync(endpoint, 0o600);
    const rec = { protocol: 1, pid: process.pid, piVersion: '1.6.0', sessionFile: file, sessionId: 's', endpoint, token, startedAt: Date.now() };
    fs.writeFileSync(path.join(dir, stem + '.json'), JSON.stringify(rec), { mode: 0o600 });
    if (done) done();
  });
}
serve(sessionFile, () => process.stdout.write('up\\n'));
`;

describe('every command on a hostile session: no terminal control reaches stdout or stderr', () => {
  const root = tempDir('pi-tree-hostile-');
  const agent = join(root, 'agent');
  const env = { PI_CODING_AGENT_DIR: agent, PI_TREE_BRIDGE_DIR: join(root, 'no-bridges') };
  const file = hostileSession(agent);
  let lb: Loopback;

  before(async () => {
    lb = await startLoopback(() => completionSse(`## Goal\n${X}`));
  });
  after(() => lb?.close());

  // pi's agent dir for connect/disconnect, named with the controls: every message prints its paths
  const hostileAgent = { ...env, PI_CODING_AGENT_DIR: join(root, `agent${X}`) };

  /** A copy of the session for a command that writes. */
  const copy = (name: string) => {
    const to = join(tempDir('pi-tree-hostile-w-'), name);
    copyFileSync(file, to);
    return to;
  };

  it('covers every command of the usage text', () => {
    const listed = new Set([...USAGE.matchAll(/^ {2}pi-tree (\w+)/gm)].map((m) => m[1]));
    const run = new Set(commands().map((c) => c.args[0]));
    assert.deepEqual(
      [...listed].filter((c) => !run.has(c)),
      [],
    );
  });

  interface Case {
    args: string[];
    code?: number;
    /** The command prints JSON: parsed, the hostile values are exact. */
    json?: (v: any) => void;
    /** --json: JSON.stringify's text as it is (only stderr is checked for controls). */
    exact?: boolean;
    /** Text the output must show (escaped, not dropped). */
    shows?: string;
    /** Environment of its own (connect: an agent dir whose name is hostile, printed back). */
    env?: NodeJS.ProcessEnv;
  }
  const model = () => ['--endpoint', lb.url, '--model', 'm'];
  const commands = (): Case[] => [
    { args: ['ls', '--cwd', CWD] },
    { args: ['ls', '--all'] },
    { args: ['tree', file] },
    { args: ['tree', file, '--filter', 'all'] },
    { args: ['context', file] },
    { args: ['context', file, '--leaf', id('a2')] },
    { args: ['stats', file] },
    { args: ['compare', file, id('a2'), id('a3')] },
    { args: ['compare', file, id('r2'), id('r3'), '--with', file] },
    { args: ['files', file] },
    { args: ['files', file, id('r2')] },
    { args: ['export', file, id('a4')] },
    {
      args: ['move', copy('m1.jsonl'), id('u2')],
      json: (v) => (assert.equal(v.leafId, id('r1')), assert.equal(v.editorText, `branch A ${X}`)),
    },
    { args: ['move', copy('m2.jsonl'), id('a2'), '--exact'], json: (v) => assert.equal(v.leafId, id('a2')) },
    {
      args: ['move', copy('m3.jsonl'), id('a2'), '--summary-text', `sum ${X}`],
      json: (v) => assert.equal(v.leafId, v.summaryId),
    },
    { args: ['label', copy('l.jsonl'), id('a1'), `new${X}`] },
    { args: ['name', copy('n.jsonl'), `nm${X}`] },
    { args: ['fork', copy('f.jsonl'), id('u3')] },
    { args: ['clone', copy('c.jsonl'), id('a2')] },
    { args: ['checkpoints', file] },
    {
      args: ['checkpoints', file, '--json'],
      exact: true,
      json: (v) => assert.ok(v.entries.some((e: { entryId: string }) => e.entryId === id('a5'))),
    },
    { args: ['checkpoints', copy('d.jsonl'), '--delete'] },
    { args: ['restore', file, id('a3'), '--dry-run'] },
    {
      args: ['restore', file, id('a5'), '--dry-run', '--json'],
      exact: true,
      json: (v) => assert.equal(v.targetId, id('a5')),
    },
    { args: ['diff', file, id('a3'), id('a5')], shows: '+second \\x1b]52;c;' },
    { args: ['diff', file, id('a1'), id('a5'), '--name-only'] },
    { args: ['summarize', file, id('a2'), '--dry-run'] },
    { args: ['compact', file, '--dry-run', '--keep-recent-tokens', '1'] },
    { args: ['summarize', copy('s.jsonl'), id('u2'), '--focus', X, ...model()] },
    { args: ['compact', copy('k.jsonl'), '--keep-recent-tokens', '1', ...model()] },
    // failures that quote what they were given or read
    { args: ['move', file, id('nope')], code: 1 },
    { args: ['files', file, id('nope')], code: 1 },
    { args: ['compare', file, id('a2'), id('nope')], code: 1 },
    { args: ['export', file, id('nope')], code: 1 },
    { args: ['context', file, '--leaf', id('nope')], code: 1 },
    { args: ['diff', file, id('nope')], code: 1 },
    { args: ['restore', file, '--undo'], code: 1 },
    { args: ['summarize', file, id('nope'), '--dry-run'], code: 1 },
    { args: ['ask', file, id('nope'), `q${X}`], code: 1 },
    { args: ['variants', file, id('nope'), `q${X}`, '--count', '2'], code: 1 },
    // (the session's folder is gone: the message names it)
    { args: ['ask', file, id('a2'), `q${X}`], code: 1 },
    // a session that is no variant: refused, its path printed safely
    { args: ['adopt', file, '--dry-run'], code: 1 },
    { args: ['connect', '--status'], env: hostileAgent, shows: 'not connected' },
    { args: ['connect'], env: hostileAgent, shows: 'agent\\x1b]52;c;' },
    { args: ['connect', '--status'], env: hostileAgent, shows: 'connected:' },
    { args: ['disconnect'], env: hostileAgent, shows: 'disconnected:' },
    { args: ['tree', file, '--filter', X], code: 2 },
    { args: [`tree${X}`], code: 2 },
  ];

  it('human-readable output shows controls as visible escapes; JSON keeps them exact', async () => {
    // (every command runs; the failures are reported together)
    const failed: string[] = [];
    for (const c of commands()) {
      const what = c.args.map((a) => JSON.stringify(a)).join(' ');
      const r = await cli(c.args, c.env ?? env);
      try {
        assert.equal(r.code, c.code ?? 0, `${what}: ${r.err}`);
        assertInert(c.exact ? { ...r, out: '', rawOut: Buffer.alloc(0) } : r, what);
        if (c.json) c.json(JSON.parse(r.out));
        if (c.shows) assert.ok(r.out.includes(c.shows), `${what} shows ${c.shows}: ${r.out}`);
      } catch (e) {
        failed.push((e as Error).message.split('\n')[0]);
      }
    }
    assert.deepEqual(failed, []);
    // shown, not dropped
    const compare = await cli(['compare', file, id('a2'), id('a3')], env);
    assert.ok(compare.out.includes('a2\\x1b]52;c;cm0gLXJmIH4K\\x07'), compare.out);
    const files = await cli(['files', file], env);
    assert.ok(files.out.includes('a1\\x1b]52;c;cm0gLXJmIH4K\\x07'), files.out);
  });

  it('--json output is exact JSON of the hostile values', async () => {
    const f = JSON.parse((await cli(['files', file, '--json'], env)).out);
    assert.ok(f.entries.some((e: { entryId: string }) => e.entryId === id('a1')));
    const c = JSON.parse((await cli(['compare', file, id('a2'), id('a3'), '--json'], env)).out);
    assert.equal(c.ancestorId, id('r1'));
  });

  describe('the replies of a running pi (a fake bridge)', () => {
    const bridges = join(root, 'bridges');
    const session = copy('live.jsonl');
    let fake: ChildProcess | undefined;

    before(async () => {
      ensurePrivateDir(bridges);
      fake = spawn(process.execPath, ['-e', FAKE_PI, bridges, session, X], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        fake!.once('exit', (code) => reject(new Error(`the fake pi exited (${code})`)));
        fake!.stdout!.once('data', () => resolve());
      });
    });
    after(async () => {
      if (!fake || fake.exitCode !== null) return;
      const exited = new Promise((r) => fake!.once('exit', r));
      fake.kill('SIGKILL');
      await exited;
    });

    it('move, label, name, fork, clone and ask print what pi answered, escaped', async () => {
      const benv = { ...env, PI_TREE_BRIDGE_DIR: bridges };
      const failed: string[] = [];
      for (const args of [
        ['move', session, id('a2')],
        ['label', session, id('a1'), 'x'],
        ['name', session, 'y'],
        ['fork', session, id('u3')],
        ['clone', session, id('a2')],
        ['ask', session, id('a2'), `why ${X}`],
      ]) {
        const r = await cli(args, benv);
        try {
          assert.equal(r.code, 0, `${args[0]}: ${r.err}`);
          assert.match(r.err, /via pi/, `${args[0]} went through the fake pi`);
          assertInert(r, `${args[0]} via pi`);
          if (args[0] === 'move') assert.equal(JSON.parse(r.out).leafRecordId, id('pi-rec'));
          else if (args[0] === 'ask')
            assert.ok(
              r.out.includes('answer \\x1b]52;c;') && r.err.includes('leaf pi-a\\x1b]52;c;'),
              `ask: ${r.out} ${r.err}`,
            );
          else assert.ok(r.out.includes('\\x1b]52;c;'), `${args[0]}: ${r.out}`);
        } catch (e) {
          failed.push((e as Error).message.split('\n')[0]);
        }
      }
      assert.deepEqual(failed, []);
      const r = await cli(['label', session, id('a1'), 'fail'], benv);
      assert.equal(r.code, 1);
      assertInert(r, 'a failure pi reports');
      assert.match(r.err, /pi says \\x1b\]52/);
    });
  });
});
