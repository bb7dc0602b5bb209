// `pi-tree variants FILE ENTRY PROMPT`: N variants run by the user's pi from PATH (headless, one per
// variant), the outcomes in the order of --models (--json), the check reported per variant, progress on
// stderr in whole lines, every failure one line with a non-zero exit, nothing written on bad input, and
// Ctrl+C cancelling every variant with no pi left behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { variantsRoot } from '../../src/core/checkpoints/index.js';
import { until } from '../../scripts/lib/until.js';
import { PI_REPLY_MS, PI_START_MS, piShim } from '../support/piRpc.js';
import { pisOf } from '../support/pisOf.js';
import { tempDir } from '../support/tmp.js';
import { lastIsWhole } from '../support/askPi.js';
import { startVariantsPi, VARIANT_PROMPT, type VariantsPi } from '../support/variantsPi.js';

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s.toString()), err: (s) => (err += s), env });
  return { code, out, err };
}

const listing = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [];

describe('pi-tree variants', () => {
  let vp: VariantsPi;
  let env: NodeJS.ProcessEnv;
  const sessions = () => join(vp.pe.workDir, '..', 'sessions');

  before(async () => {
    vp = await startVariantsPi();
    // the user's pi on PATH (outside the session's folders)
    env = { ...vp.pe.env, PATH: `${piShim(tempDir('pi-shim-'))}:${process.env.PATH}` };
  });
  after(async () => {
    await vp?.stop();
  });

  it('--json: the variants in the order of --models, files, the check per variant, answers and usage', async () => {
    const r = await run(
      [
        'variants',
        vp.file,
        vp.nodeId,
        VARIANT_PROMPT,
        '--models',
        'loop/other-model,loop/loop-model,loop/other-model',
        '--check',
        'grep -q ok answer.txt',
        '--jobs',
        '2',
        '--json',
      ],
      env,
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '', 'no progress lines with --json');
    const { variants } = JSON.parse(r.out);
    assert.deepEqual(
      variants.map((v: any) => [v.model, v.phase, v.check.exitCode]),
      [
        ['loop/other-model', 'done', 1],
        ['loop/loop-model', 'done', 0],
        ['loop/other-model', 'done', 1],
      ],
    );
    for (const v of variants) {
      assert.ok(existsSync(v.session) && existsSync(v.folder));
      assert.equal(
        readFileSync(join(v.folder, 'answer.txt'), 'utf8'),
        v.model === 'loop/loop-model' ? 'ok\nfine\n' : 'bad\n',
      );
      assert.deepEqual(v.files, [
        { path: 'answer.txt', status: 'created', added: v.model === 'loop/loop-model' ? 2 : 1, removed: 0 },
      ]);
      assert.equal(v.answer, `${v.model.split('/')[1]}: wrote it`);
      assert.equal(v.leaf, v.answerId);
      assert.ok(v.tokens.total > 0 && v.cost > 0 && v.ms > 0);
      assert.equal(v.error, undefined);
    }
  });

  it('prints progress on stderr and the outcome on stdout', async () => {
    const r = await run(
      ['variants', vp.file, vp.nodeId, VARIANT_PROMPT, '--count', '1', '--check', 'echo checked; false'],
      env,
    );
    assert.equal(r.code, 0, r.err);
    const lines = r.err.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => l.replace(/ in \/.*$|(: done), .*$/, '$1')),
      ['variant 1/1: making its folder', 'variant 1/1: pi runs the turn', 'variant 1/1: checking', 'variant 1/1: done'],
    );
    assert.match(lines[3], /^variant 1\/1: done, 1 file \+2 -0, check failed \(exit 1\), \d+ tokens, \d+\.\d s$/);
    assert.match(
      r.out,
      /^variant 1\/1: done\n {2}session .*\.jsonl\n {2}folder {2}\/.*\n {2}1 file \+2 -0\n {4}A answer\.txt \+2 -0\n {2}check failed \(exit 1\); its output ends:\n {4}checked\n/,
    );
    assert.match(r.out, / {2}answer:\n {4}loop-model: wrote it\n$/);
  });

  it('--check-timeout stops a check that runs past it, and what it started', async () => {
    const r = await run(
      ['variants', vp.file, vp.nodeId, VARIANT_PROMPT, '--count', '1', '--check', 'sleep 300', '--check-timeout', '1'],
      env,
    );
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /check stopped \(SIGTERM\); its output ends:\n {4}pi-tree: the check ran past 1 s and was stopped\n/,
    );
  });

  it('refuses bad input before anything is written: one line (a usage error: with the usage)', async () => {
    const before = { sessions: listing(sessions()), variants: listing(variantsRoot(vp.pe.agentDir)) };
    const cases: [string[], number, RegExp][] = [
      [['--count', '0'], 2, /^pi-tree variants: --count must be a whole number from 1 to 8, not "0"\n$/],
      [['--count', '9'], 2, /--count must be a whole number from 1 to 8/],
      [['--count', '2', '--models', 'loop/loop-model'], 2, /give --count or --models, not both/],
      [['--models', 'loop-model'], 2, /--model must be PROVIDER\/ID/],
      [['--jobs', '0'], 2, /--jobs must be a whole number from 1 to 8/],
      [['--check', ' '], 2, /--check is empty/],
      [
        ['--check', 'true', '--check-timeout', '0'],
        2,
        /^pi-tree variants: --check-timeout must be a whole number from 1 to 86400, not "0"\n$/,
      ],
      [['--check', 'true', '--check-timeout', '1.5'], 2, /--check-timeout must be a whole number from 1 to 86400/],
      [['--check', 'true', '--check-timeout', 'soon'], 2, /--check-timeout must be a whole number from 1 to 86400/],
      [
        ['--check-timeout', '5'],
        2,
        /^pi-tree variants: --check-timeout is how long --check may run: give --check too\n$/,
      ],
      [
        ['--models', 'loop/loop-model,loop/no-such-model'],
        1,
        /^pi-tree variants: Model not found: loop\/no-such-model \(pi lists .*\); nothing was made\n$/,
      ],
    ];
    for (const [extra, code, err] of cases) {
      const r = await run(['variants', vp.file, vp.nodeId, VARIANT_PROMPT, ...extra], env);
      assert.equal(r.code, code, `${extra.join(' ')}: ${r.err}`);
      assert.match(r.err, err, extra.join(' '));
      assert.equal(r.out, '');
    }
    const other: [string[], number, RegExp][] = [
      [
        ['variants', vp.file, 'nope1234', VARIANT_PROMPT],
        1,
        /^pi-tree variants: no entry nope1234 in .*; nothing was made\n$/,
      ],
      [['variants', vp.file, vp.nodeId, '  '], 2, /the prompt is empty/],
      [['variants', join(sessions(), 'gone.jsonl'), vp.nodeId, VARIANT_PROMPT], 1, /gone\.jsonl: no such file\n$/],
    ];
    for (const [argv, code, err] of other) {
      const r = await run(argv, env);
      assert.equal(r.code, code, `${argv.join(' ')}: ${r.err}`);
      assert.match(r.err, err, argv.join(' '));
      if (code === 1) assert.equal(r.err.trim().split('\n').length, 1, 'one line');
    }
    assert.deepEqual(
      { sessions: listing(sessions()), variants: listing(variantsRoot(vp.pe.agentDir)) },
      before,
      'nothing was written',
    );
  });

  it(
    'Ctrl+C cancels every variant: each pi aborts, whole lines, no pi left; exit 1',
    { skip: process.platform !== 'linux' },
    async () => {
      const hold = vp.newHold();
      const from = vp.lb.requests.length;
      const p = spawn(
        process.execPath,
        ['dist/cli.js', 'variants', vp.file, vp.nodeId, VARIANT_PROMPT, '--models', 'loop/slow-model,loop/slow-model'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      let out = '';
      p.stderr.on('data', (d) => (err += d));
      p.stdout.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
      // both pis are mid-answer once the model was asked twice (the answers are held after their first piece)
      await until(
        () =>
          vp.lb.requests.slice(from).filter((q) => q.body?.model === 'slow-model').length >= 2 ||
          (p.exitCode !== null && assert.fail(err)),
        PI_START_MS * 2,
        'two slow requests',
      );
      await until(() => pisOf(vp.pe.agentDir).length >= 2, PI_REPLY_MS, 'two pis running');
      p.kill('SIGINT');
      assert.equal(await exited, 1, err);
      hold.open();
      assert.ok(err.endsWith('\n'), 'whole lines');
      assert.match(
        err.trimEnd().split('\n').at(-1)!,
        /^pi-tree variants: cancelled; 2 of 2 variants did not finish \(2 cancelled, 0 failed\)$/,
      );
      assert.deepEqual(pisOf(vp.pe.agentDir), [], 'no pi left');
      const sessionsOut = [...out.matchAll(/^ {2}session (.*)$/gm)].map((m) => m[1]);
      assert.equal(sessionsOut.length, 2, out);
      for (const s of sessionsOut) {
        const text = readFileSync(s, 'utf8');
        assert.ok(text.endsWith('\n'), 'the variant session holds whole lines');
        assert.equal(JSON.parse(text.trimEnd().split('\n').at(-1)!).message?.stopReason, 'aborted');
      }
    },
  );

  it(
    "a kill -9 of pi-tree variants mid-turn: each pi's stdin closes, it aborts, writes whole lines and exits",
    { skip: process.platform !== 'linux' },
    async () => {
      const hold = vp.newHold();
      const from = vp.lb.requests.length;
      const before = new Set(listing(sessions()));
      const p = spawn(
        process.execPath,
        ['dist/cli.js', 'variants', vp.file, vp.nodeId, VARIANT_PROMPT, '--models', 'loop/slow-model,loop/slow-model'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      p.stderr.on('data', (d) => (err += d));
      const exited = new Promise<void>((r) => p.once('exit', () => r()));
      // both turns run once the model was asked twice (the answers are held after their first piece)
      await until(
        () =>
          vp.lb.requests.slice(from).filter((q) => q.body?.model === 'slow-model').length >= 2 ||
          (p.exitCode !== null && assert.fail(err)),
        PI_START_MS * 2,
        'two slow requests',
      );
      const pis = await until(
        () => (pisOf(vp.pe.agentDir).length >= 2 ? pisOf(vp.pe.agentDir) : undefined),
        PI_REPLY_MS,
        'two pis running',
      );
      p.kill('SIGKILL');
      await exited;
      await until(
        () => pisOf(vp.pe.agentDir).length === 0,
        PI_REPLY_MS,
        () => `pi ${pis.join(', ')} to exit`,
      );
      hold.open();
      const made = listing(sessions()).filter((f) => f.endsWith('.jsonl') && !before.has(f));
      assert.equal(made.length, 2, `the two variants' sessions: ${made.join(', ')}`);
      for (const f of made) {
        const text = readFileSync(join(sessions(), f), 'utf8');
        assert.ok(text.endsWith('\n'), 'no torn last line');
        for (const l of text.split('\n').filter(Boolean)) JSON.parse(l);
        assert.ok(lastIsWhole(JSON.parse(text.trimEnd().split('\n').at(-1)!)), text.slice(-600));
      }
    },
  );
});
