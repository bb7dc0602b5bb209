// `pi-tree stats` against pi's own getSessionStats() (AgentSession, agent-session.js), run over pi's
// own SessionManager on files pi wrote: usage of assistant and toolResult messages, usage entries,
// compactions and branch summaries; message, tool-call and tool-result counts. Then every real fixture
// (format v1, pi's author's sessions) as it is, migrated by pi-tree, and through a running pi (RPC
// get_session_stats), compared with ===; and a file with a line written twice, which pi counts twice.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Session } from '../../src/core/session/session.js';
import { computeStats } from '../../src/core/context/stats.js';
import { noteUsage, UsageColumns } from '../../src/core/context/usageColumns.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { loadPi } from '../support/pi.js';
import { makePiEnv, PiRpc } from '../support/piRpc.js';
import { tempDir } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

const usage = (i: number, o: number, cost: number) => ({
  input: i,
  output: o,
  cacheRead: 3,
  cacheWrite: 2,
  totalTokens: i + o + 5 + 1000, // pi sums the four fields, not totalTokens
  cost: { input: cost / 3, output: cost / 3, cacheRead: cost / 6, cacheWrite: cost / 6, total: cost },
});

/** A session written by pi's SessionManager with every kind of entry that carries usage. */
async function piWritten(): Promise<string> {
  const { SessionManager } = await loadPi();
  const dir = tempDir('pi-stats-');
  const sm = SessionManager.create('/work/p', dir);
  const t = Date.now();
  sm.appendMessage({ role: 'user', content: 'hi', timestamp: t });
  const a1 = sm.appendMessage({
    role: 'assistant',
    content: [
      { type: 'text', text: 'calling' },
      { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a' } },
      { type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: 'ls' } },
    ],
    api: 'openai-completions',
    provider: 'openai',
    model: 'gpt-x',
    usage: usage(100, 20, 0.013),
    stopReason: 'toolUse',
    timestamp: t + 1,
  });
  sm.appendMessage({
    role: 'toolResult',
    toolCallId: 'c1',
    toolName: 'read',
    content: [{ type: 'text', text: 'file' }],
    isError: false,
    timestamp: t + 2,
    usage: usage(7, 1, 0.0007),
  });
  sm.appendMessage({
    role: 'toolResult',
    toolCallId: 'c2',
    toolName: 'bash',
    content: [{ type: 'text', text: 'x' }],
    isError: false,
    timestamp: t + 3,
  });
  sm.appendUsage('summary', 'anthropic', 'claude-y', usage(50, 5, 0.1));
  sm.appendMessage({
    role: 'assistant',
    content: [{ type: 'text', text: 'done' }],
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-y',
    usage: usage(300, 40, 0.0301),
    stopReason: 'stop',
    timestamp: t + 4,
  });
  sm.appendCompaction('compacted', a1, 400, { readFiles: [], modifiedFiles: [] }, false, usage(900, 60, 0.2));
  sm.appendMessage({ role: 'user', content: 'again', timestamp: t + 5 });
  sm.branchWithSummary(a1, 'went back', { readFiles: [], modifiedFiles: [] }, false, usage(30, 9, 0.0123));
  sm.appendMessage({ role: 'user', content: 'on the branch', timestamp: t + 6 });
  sm.appendMessage({
    role: 'assistant',
    content: [{ type: 'toolCall', id: 'c3', name: 'edit', arguments: {} }],
    api: 'openai-completions',
    provider: 'openai',
    model: 'gpt-x',
    usage: usage(11, 2, 0.0011),
    stopReason: 'toolUse',
    timestamp: t + 7,
  });
  return sm.getSessionFile();
}

async function piStats(file: string) {
  const { SessionManager, AgentSession } = await loadPi();
  // (on a copy: pi rewrites a file of an older format when it opens it)
  const copy = join(tempDir('pi-stats-copy-'), 'copy.jsonl');
  copyFileSync(file, copy);
  const sm = SessionManager.open(copy);
  // pi's own method, over pi's own view of the file (the only other thing it reads is the context
  // usage, which needs a live model and is not part of what stats reports).
  return AgentSession.prototype.getSessionStats.call({
    sessionManager: sm,
    sessionFile: copy,
    sessionId: sm.getSessionId(),
    getContextUsage: () => undefined,
  });
}

describe('stats equal pi getSessionStats()', () => {
  it('tokens, cost, user/assistant/total messages, tool calls and results', async () => {
    const file = await piWritten();
    const theirs = await piStats(file);
    const ours = await computeStats(await Session.open(file));
    assert.deepStrictEqual(ours.tokens, theirs.tokens);
    assert.equal(ours.cost, theirs.cost);
    assert.equal(ours.messages, theirs.totalMessages);
    assert.equal(ours.userMessages, theirs.userMessages);
    assert.equal(ours.assistantMessages, theirs.assistantMessages);
    assert.equal(ours.toolCalls, theirs.toolCalls);
    assert.equal(ours.toolResults, theirs.toolResults);
    // and through the CLI as users run it
    const r = spawnSync(process.execPath, [CLI, 'stats', file, '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const cli = JSON.parse(r.stdout);
    assert.deepStrictEqual(cli.tokens, theirs.tokens);
    assert.equal(cli.cost, theirs.cost);
    assert.equal(cli.toolCalls, theirs.toolCalls);
  });
});

/** pi-tree's figures three ways: opened plainly, with the usage noted while read (as the CLI and the sidebar do), and by the CLI. */
async function oursAll(file: string) {
  const plain = await computeStats(await Session.open(file));
  const noted = new UsageColumns();
  const read = await computeStats(await Session.open(file, { onMessageLine: noteUsage(noted) }), undefined, noted);
  const r = spawnSync(process.execPath, [CLI, 'stats', file, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return {
    plain,
    read,
    cli: JSON.parse(r.stdout) as { tokens: unknown; cost: number; messages: number; toolCalls: number },
  };
}

/** Every figure pi's getSessionStats() gives, equal (===) three ways. */
function assertSame(
  ours: Awaited<ReturnType<typeof oursAll>>,
  theirs: Awaited<ReturnType<typeof piStats>>,
  what: string,
) {
  for (const [how, o] of Object.entries(ours)) {
    assert.equal(o.cost, theirs.cost, `${what} (${how}): cost`);
    assert.deepStrictEqual(o.tokens, theirs.tokens, `${what} (${how}): tokens`);
    assert.equal(o.messages, theirs.totalMessages, `${what} (${how}): messages`);
    assert.equal(o.toolCalls, theirs.toolCalls, `${what} (${how}): tool calls`);
  }
  for (const o of [ours.plain, ours.read]) {
    assert.equal(o.userMessages, theirs.userMessages, `${what}: user messages`);
    assert.equal(o.assistantMessages, theirs.assistantMessages, `${what}: assistant messages`);
    assert.equal(o.toolResults, theirs.toolResults, `${what}: tool results`);
  }
}

const REAL = ['/work/shared/fixtures/real', join(__dirname, '..', 'fixtures', 'real')].filter((d) => existsSync(d));
const realFixtures = () =>
  REAL.flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => join(d, f)),
  );

describe('stats equal pi on real sessions and odd files', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback((_req, n) => completionSse(`answer ${n}`));
  });
  after(async () => {
    await lb?.close();
  });

  it('every real fixture (format v1): as it is, migrated by pi-tree, and as a running pi reports it', async () => {
    const files = realFixtures();
    assert.ok(files.length >= 2, `real fixtures in ${REAL.join(', ')}`);
    const pe = makePiEnv(lb);
    for (const fixture of files) {
      const file = join(tempDir('pi-stats-real-'), 'real.jsonl');
      // the header's folder, so that pi opens it (stats do not depend on it)
      const [head, ...rest] = readFileSync(fixture, 'utf8').split('\n');
      writeFileSync(file, [JSON.stringify({ ...JSON.parse(head), cwd: pe.workDir }), ...rest].join('\n'));
      const theirs = await piStats(file);
      assert.ok(theirs.cost > 0 && theirs.assistantMessages > 100, `${fixture}: a real session`);
      assertSame(await oursAll(file), theirs, fixture);

      // pi itself, running the session
      const running = join(pe.workDir, `${Date.now()}-running.jsonl`);
      copyFileSync(file, running);
      const rpc = PiRpc.start(running, pe, { bridge: false });
      try {
        await rpc.ready();
        const live = await rpc.send({ type: 'get_session_stats' });
        assert.equal(live.cost, theirs.cost, `${fixture}: pi's RPC gives what getSessionStats gives`);
      } finally {
        await rpc.stop();
      }

      // migrated by pi-tree (its first change rewrites the v1 file as v3)
      const s = await Session.open(file);
      assert.equal(s.fileVersion, 1);
      await s.setName('migrated');
      assert.equal(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).version, 3);
      assertSame(await oursAll(file), await piStats(file), `${fixture} migrated`);
    }
  });

  it('a line written twice (same id), which pi counts twice', async () => {
    const file = await piWritten();
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const twice = lines.find((l) => l.includes('"role":"assistant"') && l.includes('"claude-y"'))!;
    appendFileSync(file, `${twice}\n`);
    const theirs = await piStats(file);
    assert.equal(theirs.assistantMessages, 4, 'pi counts the line twice');
    assertSame(await oursAll(file), theirs, 'a duplicated line');
  });
});
