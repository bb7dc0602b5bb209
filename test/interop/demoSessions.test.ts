// The demo/e2e session generator (scripts/lib/demoSessions.ts) against the real pi 1.6.0: pi finds
// the files where we put them, loads them unchanged with the same tree, leaf, labels and name, writes
// the same key order for every entry type, and its own /fork produces what our fork models.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { encodeCwd, SessionBuilder, sessionDirFor, writeDemoSessions } from '../../scripts/lib/demoSessions.js';

type Any = any;
const loadPi = (): Promise<Any> => import('@earendil-works/pi-coding-agent');

const root = mkdtempSync(join(tmpdir(), 'pi-tree-demo-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('demo sessions match pi 1.6.0', () => {
  const agentDir = join(root, 'agent');
  const cwd = join(root, 'my proj:x');
  const demo = writeDemoSessions(agentDir, cwd);
  const files = [demo.branched, demo.fork, demo.small];

  it('encodes the cwd like pi', () => {
    assert.equal(encodeCwd('/home/user/my proj:x'), '--home-user-my proj-x--');
    assert.equal(encodeCwd('/a/../b/rel/'), '--b-rel--');
  });

  it('is deterministic', () => {
    const again = writeDemoSessions(join(root, 'agent2'), cwd);
    for (const [i, s] of [again.branched, again.fork, again.small].entries()) {
      assert.equal(s.text().replaceAll(join(root, 'agent2'), agentDir), files[i].text());
    }
  });

  it('pi lists them in its default directory for the cwd', async () => {
    const { SessionManager } = await loadPi();
    const saved = process.env.PI_CODING_AGENT_DIR;
    process.env.PI_CODING_AGENT_DIR = agentDir;
    try {
      assert.equal(SessionManager.create(cwd).getSessionDir(), sessionDirFor(agentDir, cwd));
      const listed = await SessionManager.list(cwd);
      assert.deepEqual(listed.map((s: Any) => s.path).sort(), files.map((f) => f.file).sort());
      const branched = listed.find((s: Any) => s.id === demo.branched.id);
      assert.equal(branched.name, 'Stream the JSONL reader');
      assert.equal(listed.find((s: Any) => s.id === demo.fork.id).parentSessionPath, demo.branched.file);
    } finally {
      if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = saved;
    }
  });

  it('pi loads every file unchanged, with our entries, leaf, labels and name', async () => {
    const { SessionManager } = await loadPi();
    for (const s of files) {
      const before = readFileSync(s.file!, 'utf8');
      assert.match(s.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.ok(before.endsWith('\n') && !before.includes('\r'));
      const sm = SessionManager.open(s.file!);
      assert.equal(readFileSync(s.file!, 'utf8'), before, 'pi must not rewrite the file');
      assert.deepEqual(sm.getEntries(), s.entries);
      assert.deepEqual(sm.getHeader(), s.header());
      assert.equal(sm.getLeafId(), s.entries.at(-1)!.id);
      for (const e of s.entries) assert.match(e.id, /^[0-9a-f]{8}$/);
      for (const [target, { label }] of s.labels) assert.equal(sm.getLabel(target), label);
      for (const e of s.entries) if (!s.labels.has(e.id)) assert.equal(sm.getLabel(e.id), undefined);
    }
    const sm = SessionManager.open(demo.branched.file!);
    assert.equal(sm.getSessionName(), 'Stream the JSONL reader');
    // the abandoned branch stays in the tree; the summary points back at it
    const summary = sm.getEntries().find((e: Any) => e.type === 'branch_summary');
    assert.equal(summary.fromId, demo.ids.oldLeaf);
    assert.equal(summary.parentId, demo.ids.plan);
    assert.equal(sm.getChildren(demo.ids.plan).length, 2);
  });

  it('writes every entry type with the key order pi writes', async () => {
    const { SessionManager } = await loadPi();
    const sm = SessionManager.inMemory(cwd);
    sm.appendModelChange('anthropic', 'm');
    sm.appendThinkingLevelChange('high');
    const u = sm.appendMessage({ role: 'user', content: [{ type: 'text', text: 'q' }], timestamp: 1 });
    sm.appendMessage({
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'm',
      usage: {
        input: 1,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp: 2,
    });
    sm.appendLabelChange(u, 'x');
    sm.appendLabelChange(u, undefined);
    sm.appendSessionInfo('n');
    sm.branchWithSummary(u, 's', { readFiles: [], modifiedFiles: [] }, false, {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    sm.appendCompaction('c', u, 10, { readFiles: [], modifiedFiles: [] }, false, {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    // compare what reaches the disk (pi keeps `label: undefined` in memory; JSON drops it)
    const piKeys = (sm.getEntries() as Any[]).map(
      (e) => `${e.type}:${Object.keys(JSON.parse(JSON.stringify(e))).join(',')}`,
    );

    const b = new SessionBuilder({ cwd, seed: 'keys', start: 0 });
    b.modelChange('anthropic', 'm');
    b.thinkingLevel('high');
    const bu = b.user('q');
    b.assistant('a');
    b.label(bu, 'x');
    b.label(bu);
    b.name('n');
    b.branchSummary(bu, 's');
    b.compaction('c', bu, 10);
    assert.deepEqual(
      b.entries.map((e) => `${e.type}:${Object.keys(e).join(',')}`),
      piKeys,
    );
    assert.deepEqual(
      Object.keys(b.header()),
      Object.keys(sm.getHeader()).filter((k) => sm.getHeader()[k] !== undefined),
    );
  });

  it("our fork is what pi's /fork writes (same path, re-chained, labels re-emitted)", async () => {
    const { SessionManager } = await loadPi();
    const sm = SessionManager.open(demo.branched.file!);
    const forked = sm.createBranchedSession(demo.ids.plan);
    const theirs = readFileSync(forked, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ours = [demo.fork.header(), ...demo.fork.entries].slice(0, theirs.length);
    assert.equal(theirs[0].parentSession, demo.branched.file);
    assert.deepEqual(ours[0].parentSession, theirs[0].parentSession);
    // label entries get fresh random ids from pi: compare them without ids
    const strip = (e: Any) => (e.type === 'label' ? { ...e, id: '', parentId: '' } : e);
    assert.deepEqual(ours.slice(1).map(strip), theirs.slice(1).map(strip));
    assert.ok(
      theirs.some((e) => e.type === 'label'),
      'the fork carries the goal label',
    );
    rmSync(forked);
    assert.deepEqual(readdirSync(demo.dir).sort(), files.map((f) => f.file!.slice(demo.dir.length + 1)).sort());
  });
});
