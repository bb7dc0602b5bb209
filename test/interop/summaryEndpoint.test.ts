// pi-tree's summaries and compactions against pi 1.6.0 itself, through a model endpoint: pi's own
// generateBranchSummary/compact and ours run against the same loopback endpoint; pi opens files after
// a pi-tree summary or compaction and builds the context we expect. (summary.test.ts: the pure functions.)
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { projectPath } from '../../src/core/context/context.js';
import { OpenAICompatibleModel } from '../../src/core/models/openaiCompatible.js';
import { Session } from '../../src/core/session/session.js';
import {
  commitBranchSummary,
  commitCompaction,
  planBranchSummary,
  planCompaction,
  prepareCompaction,
  summarizeBranch,
  summarizeCompaction,
} from '../../src/core/summary/index.js';
import type { SessionEntry } from '../../src/core/format/types.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { mulberry32 } from '../support/randomSession.js';
import { type Corpus, loadCorpora, pathTo, pi, piManager, tmp } from '../support/piCorpora.js';

let corpora: Corpus[] = [];
before(async () => {
  corpora = await loadCorpora();
});

describe('same endpoint, same answers: pi and pi-tree store the same summaries', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback((r) => {
      const body = r.body;
      const prompt: string =
        typeof body.messages[1].content === 'string' ? body.messages[1].content : body.messages[1].content[0].text;
      return completionSse(prompt.startsWith('# Conversation') ? '## Original Request\nPREFIX' : '## Goal\nHISTORY', {
        pieces: 2,
      });
    });
  });
  after(() => lb.close());

  const piModel = (contextWindow: number) => ({
    id: 'loop',
    name: 'loop',
    api: 'openai-completions',
    provider: 'loopback',
    baseUrl: lb.url,
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow,
    maxTokens: 4096,
  });
  const ourModel = (contextWindow: number) =>
    new OpenAICompatibleModel({ baseUrl: lb.url, model: 'loop', contextWindow, maxOutputTokens: 4096 });
  const promptOf = (r: { body: any }): string =>
    typeof r.body.messages[1].content === 'string' ? r.body.messages[1].content : r.body.messages[1].content[0].text;
  /** The part of a prompt that is data, not instructions. */
  const dataPart = (p: string) =>
    p.startsWith('# Conversation')
      ? p.slice(0, p.indexOf('\n\n# Instructions\n'))
      : p.slice(0, p.lastIndexOf('</conversation>\n\n') + 17) +
        (p.match(/<previous-summary>\n[\s\S]*?\n<\/previous-summary>\n\n/)?.[0] ?? '');

  test('branch summaries', async () => {
    const { api } = await pi();
    let compared = 0;
    for (const c of corpora) {
      const rnd = mulberry32(11);
      for (let k = 0; k < 4; k++) {
        const target = c.entries[Math.floor(rnd() * c.entries.length)].id;
        const window = k % 2 ? 20000 : 200000;
        const plan = await planBranchSummary(c.session, target);
        if (!plan.entries.length) continue;
        const sm = await piManager(c);
        const { entries } = api.collectEntriesForBranchSummary(sm, c.session.leafId, target);
        lb.requests.length = 0;
        const theirs = await api.generateBranchSummary(entries, {
          model: piModel(window),
          apiKey: 'k',
          signal: new AbortController().signal,
          reserveTokens: 16384,
          customInstructions: 'FOCUS',
        });
        const piRequests = lb.requests.splice(0);
        const draft = await summarizeBranch(plan, ourModel(window), { reserveTokens: 16384, focus: 'FOCUS' });
        const ourRequests = lb.requests.splice(0);
        assert.equal(ourRequests.length, piRequests.length, c.name);
        if (piRequests.length) {
          assert.equal(dataPart(promptOf(ourRequests[0])), dataPart(promptOf(piRequests[0])), `${c.name} conversation`);
          assert.ok(
            promptOf(ourRequests[0]).endsWith('\n\nAdditional focus: FOCUS') &&
              promptOf(piRequests[0]).endsWith('\n\nAdditional focus: FOCUS'),
          );
          assert.deepEqual(draft.summary!.usage, theirs.usage);
        }
        assert.equal(draft.summary!.summary, theirs.summary, `${c.name} stored summary`);
        assert.deepEqual(draft.summary!.details, {
          readFiles: theirs.readFiles ?? [],
          modifiedFiles: theirs.modifiedFiles ?? [],
        });
        compared++;
      }
    }
    assert.ok(compared >= 20, `compared ${compared}`);
  });

  test('compactions (incl. split turns and incremental updates)', async () => {
    const { api, cmp } = await pi();
    const seen = { n: 0, split: 0, previous: 0 };
    for (const c of corpora) {
      for (const leaf of c.leaves.slice(0, 6)) {
        const path = await pathTo(c, leaf);
        for (const keep of [400, 3000]) {
          const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: keep };
          const piPrep = cmp.prepareCompaction(path, settings);
          const ourPrep = prepareCompaction(path, settings);
          if (!piPrep) continue;
          lb.requests.length = 0;
          const theirs = await api.compact(
            piPrep,
            piModel(128000),
            'k',
            undefined,
            'FOCUS',
            new AbortController().signal,
          );
          const piRequests = lb.requests.splice(0);
          const ours = await summarizeCompaction(ourPrep!, ourModel(128000), { focus: 'FOCUS' });
          const ourRequests = lb.requests.splice(0);
          assert.equal(ourRequests.length, piRequests.length);
          ourRequests.forEach((r, i) =>
            assert.equal(dataPart(promptOf(r)), dataPart(promptOf(piRequests[i])), `${c.name} request ${i}`),
          );
          const { requests: _r, ...stored } = ours;
          assert.deepEqual(stored, theirs, `${c.name} leaf=${leaf} keep=${keep}`);
          seen.n++;
          if (ourPrep!.isSplitTurn) seen.split++;
          if (ourPrep!.previousSummary) seen.previous++;
        }
      }
    }
    assert.ok(seen.n > 30 && seen.split > 2 && seen.previous > 2, JSON.stringify(seen));
  });
});

describe('pi opens what pi-tree wrote', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback(() => completionSse('## Goal\nSUMMARY', { pieces: 2 }));
  });
  after(() => lb.close());
  const model = () => new OpenAICompatibleModel({ baseUrl: lb.url, model: 'm', contextWindow: 64000 });

  async function piContext(file: string) {
    const { api } = await pi();
    const sm = api.SessionManager.open(file);
    return { sm, messages: sm.buildSessionContext().messages };
  }

  test('after a branch summary: same leaf, branch summary message in place, same context as ours', async () => {
    let n = 0;
    for (const c of corpora) {
      const file = join(tmp(), 's.jsonl');
      copyFileSync(c.file, file);
      const session = await Session.open(file);
      const rnd = mulberry32(3);
      let target = '';
      for (let k = 0; k < 50 && !target; k++) {
        const t = c.entries[Math.floor(rnd() * c.entries.length)].id;
        if ((await planBranchSummary(session, t)).entries.length > 3) target = t;
      }
      assert.ok(target, c.name);
      const oldLeaf = session.leafId;
      const result = await commitBranchSummary(
        session,
        await summarizeBranch(await planBranchSummary(session, target), model()),
      );
      const before = readFileSync(file);
      // The branch_summary line is the one pi's branchWithSummary would write (same id and time).
      const line = readFileSync(file, 'utf8').trimEnd().split('\n').pop()!;
      const written = JSON.parse(line);
      const sm0 = await piManager(c, oldLeaf!);
      const piId = sm0.branchWithSummary(target, written.summary, written.details, false, written.usage);
      const piLine = JSON.stringify({ ...sm0.getEntry(piId), id: written.id, timestamp: written.timestamp });
      assert.equal(line, piLine, c.name);
      const { sm, messages } = await piContext(file);
      assert.deepEqual(readFileSync(file), before, 'pi opening a v3 file pi-tree wrote changes nothing');
      assert.equal(sm.getLeafId(), result.summaryId);
      const last = messages[messages.length - 1];
      assert.equal(last.role, 'branchSummary');
      assert.match(
        last.summary,
        /^The user explored a different conversation branch before returning here\.\nSummary of that exploration:\n\n## Goal\nSUMMARY/,
      );
      const ours = await (await Session.open(file)).buildContext();
      assert.deepEqual(ours.messages, messages, c.name);
      // The path pi sees goes through the target.
      assert.ok(sm.getBranch().some((e: SessionEntry) => e.id === target));
      n++;
    }
    assert.equal(n, corpora.length);
  });

  test('after a compaction: summary first, kept entries after, same context as ours', async () => {
    for (const c of corpora) {
      const file = join(tmp(), 'c.jsonl');
      copyFileSync(c.file, file);
      const session = await Session.open(file);
      const plan = await planCompaction(session, { keepRecentTokens: c.name === 'recovery' ? 150 : 2000 });
      if (!plan.preparation) {
        assert.equal(plan.reason, 'Already compacted', c.name);
        continue;
      }
      const { entry } = await commitCompaction(session, plan, await summarizeCompaction(plan.preparation, model()));
      const { sm, messages } = await piContext(file);
      assert.equal(sm.getLeafId(), entry.id);
      const roles = messages.map((m: any) => m.role);
      const at = roles.indexOf('compactionSummary');
      assert.ok(at === 0 || (at === 1 && roles[0] === 'system'), `${c.name}: ${roles.slice(0, 3)}`);
      assert.match(messages[at].summary, /^## Goal\nSUMMARY/);
      const kept = plan.preparation.keptEntryIds;
      const keptMessages = projectPath(plan.path)
        .entries.filter((pe) => kept.includes(pe.entry.id))
        .flatMap((pe) => pe.messages)
        .filter((m) => m.role !== 'system');
      assert.deepEqual(messages.slice(at + 1), keptMessages, c.name);
      const ours = await (await Session.open(file)).buildContext();
      assert.deepEqual(ours.messages, messages, c.name);
    }
  });
});
