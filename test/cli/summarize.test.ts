// `pi-tree summarize` / `pi-tree compact` run in-process against a loopback endpoint: exit codes,
// one-line errors, dry runs that write nothing, and the ids printed for what was written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { CliIO } from '../../src/cli/io.js';
import { runCompact, runSummarize } from '../../src/cli/summarize.js';
import { closedPort, completionJson, completionSse, useLoopback } from '../support/loopbackOpenAI.js';
import { SessionBuilder } from '../support/sessionBuilder.js';

function io(env: NodeJS.ProcessEnv = {}): CliIO & { stdout: string; stderr: string } {
  const r = {
    stdout: '',
    stderr: '',
    env,
    out(s: string) {
      r.stdout += s;
    },
    json(s: string) {
      r.stdout += s;
    },
    err(s: string) {
      r.stderr += s;
    },
  };
  return r;
}

const lb = useLoopback(() => completionSse('## Goal\nCLI SUMMARY'));

function session() {
  const b = new SessionBuilder();
  const u = b.user('x'.repeat(400));
  const other = b.assistant({ text: 'other branch' });
  b.at(u);
  b.assistant({ text: 'reading', calls: [{ name: 'read', args: { path: 'a.md' }, id: 'r' }] });
  b.toolResult('r', 'read', 'content');
  b.user('y'.repeat(400));
  const leaf = b.assistant({ text: 'z'.repeat(400) });
  return { file: b.write(), u, other, leaf };
}

describe('pi-tree summarize', () => {
  test('moves to exactly TARGET_ID, writes leaf + branch_summary, prints the summary id', async () => {
    const { file, other, leaf } = session();
    const before = readFileSync(file, 'utf8');
    const r = io({ MY_KEY: 'sk-abc' });
    const code = await runSummarize(
      [
        file,
        other,
        '--endpoint',
        lb.url,
        '--model',
        'tiny',
        '--api-key-env',
        'MY_KEY',
        '--focus',
        'files only',
        '--max-tokens',
        '512',
      ],
      r,
    );
    assert.equal(code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const lines = readFileSync(file, 'utf8')
      .slice(before.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.type),
      ['leaf', 'branch_summary'],
    );
    assert.equal(r.stdout, `${lines[1].id}\n`);
    assert.equal(lines[0].targetId, other);
    assert.equal(lines[1].parentId, other);
    assert.equal(lines[1].fromId, leaf);
    assert.match(lines[1].summary, /CLI SUMMARY\n\n<read-files>\na\.md\n<\/read-files>$/);
    const req = lb.requests[0];
    assert.equal(req.headers.authorization, 'Bearer sk-abc');
    assert.equal(req.body.model, 'tiny');
    assert.equal(req.body.max_tokens, 512);
    assert.ok(req.body.messages[1].content.endsWith('Additional focus: files only'));
  });

  test("the summary's usage is priced when the model's prices are given (USD per million tokens, pi-ai's calculateCost)", async () => {
    const { file, other } = session();
    const before = readFileSync(file, 'utf8');
    const r = io();
    // loopback USAGE: 1200 prompt tokens of which 200 cached, 80 completion
    const code = await runSummarize(
      [
        file,
        other,
        '--endpoint',
        lb.url,
        '--model',
        'tiny',
        '--price-input',
        '3',
        '--price-output',
        '15',
        '--price-cache-read',
        '0.3',
      ],
      r,
    );
    assert.equal(code, 0, r.stderr);
    const bs = readFileSync(file, 'utf8')
      .slice(before.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'branch_summary');
    const c = bs.usage.cost;
    assert.equal(c.input, (3 / 1e6) * 1000);
    assert.equal(c.output, (15 / 1e6) * 80);
    assert.equal(c.cacheRead, (0.3 / 1e6) * 200);
    assert.equal(c.total, c.input + c.output + c.cacheRead + c.cacheWrite);
    assert.ok(c.total > 0);
    assert.equal(
      await runSummarize([file, other, '--endpoint', lb.url, '--model', 'tiny', '--price-input', 'cheap'], io()),
      2,
    );
  });

  test('--dry-run prints the plan, calls no model and writes nothing', async () => {
    const { file, other } = session();
    const before = readFileSync(file);
    const r = io();
    assert.equal(await runSummarize([file, other, '--dry-run', '--context-window', '20000'], r), 0, r.stderr);
    assert.deepEqual(readFileSync(file), before);
    assert.equal(lb.requests.length, 0);
    assert.match(r.stdout, /4 entries left behind; 3 summarized, about \d+ tokens \(budget 3616\)/);
    assert.match(r.stdout, /read files: a\.md/);
  });

  test('usage errors exit 2 with the usage line', async () => {
    const { file, other } = session();
    for (const argv of [
      [],
      [file],
      [file, other],
      [file, other, '--endpoint', lb.url],
      [file, other, '--bogus'],
      [file, other, '--dry-run', '--context-window', 'lots'],
      [file, other, 'extra', '--dry-run'],
    ]) {
      const r = io();
      assert.equal(await runSummarize(argv, r), 2, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^pi-tree summarize: .+\nusage: pi-tree summarize FILE TARGET_ID/);
      assert.equal(r.stdout, '');
    }
  });

  test('runtime errors exit 1 with one line, file untouched', async () => {
    const { file, other } = session();
    const before = readFileSync(file);
    const port = await closedPort();
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [[file, 'deadbeef', '--dry-run'], {}, /entry deadbeef not found/],
      [['/nonexistent/x.jsonl', other, '--dry-run'], {}, /no such file/],
      [[file, other, '--endpoint', lb.url, '--model', 'm', '--api-key-env', 'NOPE'], {}, /NOPE.*not set/],
      [[file, other, '--endpoint', `http://127.0.0.1:${port}/v1`, '--model', 'm'], {}, /connection refused/],
    ];
    for (const [argv, env, re] of cases) {
      const r = io(env);
      assert.equal(await runSummarize(argv, r), 1, r.stderr);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /\s+at /, 'no stack trace');
    }
    lb.setHandler(() => ({ kind: 'json', status: 404, body: { error: { message: 'model "m" not found' } } }));
    const r = io();
    assert.equal(await runSummarize([file, other, '--endpoint', lb.url, '--model', 'm'], r), 1);
    assert.match(r.stderr, /^pi-tree summarize: The endpoint does not know the model "m"/);
    assert.deepEqual(readFileSync(file), before);
  });
});

describe('pi-tree compact', () => {
  test('appends a compaction and prints its id', async () => {
    const { file, leaf } = session();
    const before = readFileSync(file, 'utf8');
    lb.setHandler(() => completionJson('## Goal\nCOMPACTED'));
    const r = io();
    assert.equal(
      await runCompact([file, '--endpoint', lb.url, '--model', 'm', '--keep-recent-tokens', '100', '--no-stream'], r),
      0,
      r.stderr,
    );
    const [line] = readFileSync(file, 'utf8')
      .slice(before.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.equal(r.stdout, `${line.id}\n`);
    assert.equal(line.type, 'compaction');
    assert.equal(line.parentId, leaf);
    assert.match(line.summary, /^## Goal\nCOMPACTED/);
    assert.equal(lb.requests[0].body.stream, false);
  });

  test('--dry-run previews; nothing to compact is an error', async () => {
    const { file } = session();
    const before = readFileSync(file);
    const r = io();
    assert.equal(await runCompact([file, '--dry-run', '--keep-recent-tokens', '200'], r), 0, r.stderr);
    assert.match(r.stdout, /^tokens before: 120\nwould summarize 3 entries/);
    assert.match(r.stdout, /would keep 2 entries from/);
    assert.deepEqual(readFileSync(file), before);
    assert.equal(lb.requests.length, 0);
    const small = io();
    assert.equal(await runCompact([file, '--dry-run'], small), 1);
    assert.match(small.stderr, /^pi-tree compact: Nothing to compact \(session too small\)/);
    const usage = io();
    assert.equal(await runCompact([file, '--endpoint', lb.url], usage), 2);
    assert.match(usage.stderr, /--endpoint and --model are required/);
  });
});
