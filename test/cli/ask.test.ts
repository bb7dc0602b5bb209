// `pi-tree ask FILE ENTRY PROMPT`: the answer once pi's turn has ended (headless with the user's pi from
// PATH, or through the pi running the session), `--json` with at least {leaf, answer}; every failure one
// line on stderr with a non-zero exit, and nothing written on bad input.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { Session } from '../../src/core/session/session.js';
import { pisOf } from '../support/pisOf.js';
import { lastIsWhole, lastUserText, startAskLoop, type AskLoop } from '../support/askPi.js';
import { PI_REPLY_MS, PI_START_MS, PiRpc, piShim } from '../support/piRpc.js';
import { tempDir } from '../support/tmp.js';
import { fileEntries, waitForBridge, writeTwoTurns } from '../piExtension/helpers.js';
import { until } from '../../scripts/lib/until.js';

const nonEmpty = <T>(a: T[]): T[] | undefined => (a.length ? a : undefined);

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s.toString()), err: (s) => (err += s), env });
  return { code, out, err };
}

describe('pi-tree ask', () => {
  let loop: AskLoop;
  let env: NodeJS.ProcessEnv;
  let n = 0;
  const fresh = () => writeTwoTurns(loop.pe.workDir, `cli-${++n}.jsonl`);

  before(async () => {
    loop = await startAskLoop();
    // the user's pi on PATH (outside the session's folders)
    env = { ...loop.pe.env, PATH: `${piShim(tempDir('pi-shim-'))}:${process.env.PATH}` };
  });
  after(async () => {
    await loop.lb.close();
  });

  it('--json prints {leaf, answer}: the leaf is the assistant entry that holds the answer', async () => {
    const { file, ids } = fresh();
    const r = await run(['ask', file, ids.a1, 'cli question', '--json'], env);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    const j = JSON.parse(r.out);
    assert.equal(j.answer, 'answer: cli question');
    assert.equal(j.via, 'headless');
    assert.equal(j.fromLeafId, ids.a1);
    const session = await Session.open(file);
    assert.equal(j.leaf, session.leafId);
    assert.equal(session.index.get(j.leaf)?.role, 'assistant');
    assert.ok(session.index.branch(j.leaf).some((e) => e.id === ids.a1));
  });

  it('prints the answer as text (controls shown as escapes) and says which pi, and when it asked instead of a user message', async () => {
    const { file, ids } = fresh();
    const r = await run(['ask', file, ids.u2, 'red \x1b[31mtext', '--model', 'loop/other-model'], env);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'other: red \\x1b[31mtext\n');
    assert.match(
      r.err,
      new RegExp(`^headless pi \\d+: asked instead of user message ${ids.u2} \\(beside it\\); leaf [0-9a-f]{8}\\n$`),
    );
  });

  it('bad input: one line, a non-zero exit, nothing written', async () => {
    const { file, ids } = fresh();
    const bytes = readFileSync(file, 'utf8');
    const cases: [string[], number, RegExp][] = [
      [['ask', file, 'deadbeef', 'q'], 1, /^pi-tree ask: Entry deadbeef not found\n$/],
      [['ask', file, ids.a1, '   '], 2, /^pi-tree ask: the prompt is empty\n/],
      [['ask', file, ids.a1], 2, /^pi-tree ask: usage: pi-tree ask FILE ENTRY PROMPT/],
      [['ask', file, ids.a1, 'q', '--count', '3'], 2, /^pi-tree ask: Unknown option '--count'/],
      [['ask', file, ids.a1, 'q', 'extra'], 2, /usage: pi-tree ask/],
      [['ask', file, ids.a1, 'q', '--model', 'nope'], 2, /--model must be PROVIDER\/ID/],
      [['ask', file, ids.a1, 'q', '--wait', 'soon'], 2, /--wait must be a whole number/],
      [['ask', file, ids.a1, 'q', '--model', 'loop/nope'], 1, /^pi-tree ask: Model not found: loop\/nope\n$/],
      [['ask', `${file}.missing`, ids.a1, 'q'], 1, /^pi-tree ask: .*\.missing: no such file\n$/],
      [
        ['ask', file, ids.a1, 'q'],
        1,
        /^pi-tree ask: no pi with the pi-tree bridge runs this session, and pi is not installed/,
      ],
    ];
    for (const [argv, code, err] of cases) {
      // (the last case has no pi on PATH)
      const r = await run(argv, argv === cases.at(-1)![0] ? { ...env, PATH: '/nonexistent' } : env);
      assert.equal(r.code, code, `${argv.join(' ')}: ${r.err}`);
      assert.match(r.err, err, argv.join(' '));
      assert.equal(r.out, '');
      if (code === 1) assert.equal(r.err.trim().split('\n').length, 1, 'one line');
      assert.equal(readFileSync(file, 'utf8'), bytes, `${argv.join(' ')} wrote nothing`);
    }
  });

  it(
    'Ctrl+C cancels: pi aborts the turn, writes it whole, and is gone; one line, exit 1',
    { skip: process.platform !== 'linux' },
    async () => {
      const { file, ids } = fresh();
      const hold = loop.newHold();
      const p = spawn(process.execPath, ['dist/cli.js', 'ask', file, ids.a1, 'a slow one'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      p.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
      // pi is mid-answer once the model was asked (the answer is held after its first piece)
      await until(
        () =>
          loop.lb.requests.some((q) => lastUserText(q) === 'a slow one') || (p.exitCode !== null && assert.fail(err)),
        PI_START_MS,
        'the slow request',
      );
      await until(() => pisOf(loop.pe.agentDir).length > 0, PI_REPLY_MS, 'pi running');
      p.kill('SIGINT');
      assert.equal(await exited, 1, err);
      hold.open();
      assert.match(err, /^pi-tree ask: cancelled: pi aborted the turn \(what it wrote of it stays\)\n$/);
      assert.deepEqual(pisOf(loop.pe.agentDir), [], 'no pi left');
      const last = fileEntries(file).at(-1)!;
      assert.equal(last.message?.stopReason, 'aborted');
      assert.ok(readFileSync(file, 'utf8').endsWith('\n'));
    },
  );

  it(
    "a kill -9 of pi-tree ask mid-turn: pi's stdin closes, pi aborts the turn, writes it whole and exits",
    { skip: process.platform !== 'linux' },
    async () => {
      const { file, ids } = fresh();
      const hold = loop.newHold();
      const p = spawn(process.execPath, ['dist/cli.js', 'ask', file, ids.a1, 'a slow one, then a kill'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      p.stderr.on('data', (d) => (err += d));
      const exited = new Promise<void>((r) => p.once('exit', () => r()));
      // pi's turn runs once the model was asked (the answer is held after its first piece)
      await until(
        () =>
          loop.lb.requests.some((q) => lastUserText(q) === 'a slow one, then a kill') ||
          (p.exitCode !== null && assert.fail(err)),
        PI_START_MS,
        'the slow request',
      );
      const pis = await until(() => nonEmpty(pisOf(loop.pe.agentDir)), PI_REPLY_MS, 'pi running');
      p.kill('SIGKILL');
      await exited;
      await until(
        () => pisOf(loop.pe.agentDir).length === 0,
        PI_REPLY_MS,
        () => `pi ${pis.join(', ')} to exit`,
      );
      hold.open();
      const text = readFileSync(file, 'utf8');
      assert.ok(text.endsWith('\n'), 'no torn last line');
      for (const l of text.split('\n').filter(Boolean)) JSON.parse(l);
      assert.ok(lastIsWhole(fileEntries(file).at(-1)!), text.split('\n').slice(-2).join('\n').slice(-600));
    },
  );

  it('goes through the pi running the session, and says so', async () => {
    const { file, ids } = fresh();
    const pi = PiRpc.start(file, loop.pe);
    try {
      await waitForBridge(file, loop.pe.env, pi);
      const r = await run(['ask', file, ids.a1, 'via the running pi'], env);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, 'answer: via the running pi\n');
      assert.match(r.err, new RegExp(`^via pi ${pi.pid}; leaf [0-9a-f]{8}\\n$`));
      assert.equal(await pi.leaf(), /leaf ([0-9a-f]{8})/.exec(r.err)![1]);
    } finally {
      await pi.stop();
    }
  });
});
