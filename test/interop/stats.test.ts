// `pi-tree stats` against pi's own getSessionStats() (AgentSession, agent-session.js), run over pi's
// own SessionManager on files pi wrote: usage of assistant and toolResult messages, usage entries,
// compactions and branch summaries; message, tool-call and tool-result counts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Session } from '../../src/core/session/session.js';
import { computeStats } from '../../src/core/context/stats.js';
import { loadPi } from '../support/pi.js';
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
  sm.appendMessage({ role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'file' }], isError: false, timestamp: t + 2, usage: usage(7, 1, 0.0007) });
  sm.appendMessage({ role: 'toolResult', toolCallId: 'c2', toolName: 'bash', content: [{ type: 'text', text: 'x' }], isError: false, timestamp: t + 3 });
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
  const sm = SessionManager.open(file);
  // pi's own method, over pi's own view of the file (the only other thing it reads is the context
  // usage, which needs a live model and is not part of what stats reports).
  return AgentSession.prototype.getSessionStats.call({ sessionManager: sm, sessionFile: file, sessionId: sm.getSessionId(), getContextUsage: () => undefined });
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
