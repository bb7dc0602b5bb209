// pi-tree's summaries and compactions against pi 1.6.0 itself: the pure functions compared with pi's
// on generated sessions and on copies of real sessions. (summaryEndpoint.test.ts: through a model
// endpoint, and pi opening what pi-tree wrote.)
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { convertToLlm, projectPath } from '../../src/core/context/context.js';
import {
  buildCompactionEntry,
  calculateContextTokens,
  collectBranchEntries,
  computeFileLists,
  estimateContextTokens,
  estimateTokens,
  findCutPoint,
  formatFileOperations,
  getCurrentSystemMessage,
  planBranchSummary,
  prepareBranchEntries,
  prepareCompaction,
  serializeConversation,
} from '../../src/core/summary/index.js';
import type { SessionEntry } from '../../src/core/format/types.js';
import { mulberry32 } from '../support/randomSession.js';
import { type Corpus, loadCorpora, pathTo, pi, piManager } from '../support/piCorpora.js';

let corpora: Corpus[] = [];
before(async () => {
  corpora = await loadCorpora();
});

describe('pure functions equal pi 1.6.0', () => {
  test('estimateTokens, calculateContextTokens, getCurrentSystemMessage, estimateContextTokens', async () => {
    const { api, cmp, ai } = await pi();
    let messages = 0;
    for (const c of corpora) {
      for (const leaf of c.leaves) {
        const ms = projectPath(await pathTo(c, leaf)).messages;
        for (const m of ms) {
          assert.equal(estimateTokens(m), api.estimateTokens(m), `${c.name}: ${m.role}`);
          if (m.role === 'assistant' && m.usage)
            assert.equal(calculateContextTokens(m.usage as never), api.calculateContextTokens(m.usage));
          messages++;
        }
        assert.deepEqual(getCurrentSystemMessage(ms), ai.getCurrentSystemMessage(ms), c.name);
        assert.deepEqual(estimateContextTokens(ms), cmp.estimateContextTokens(ms), c.name);
      }
    }
    assert.ok(messages > 2000, `compared ${messages} messages`);
  });

  test('serializeConversation (after convertToLlm), including truncated tool results', async () => {
    const { api, msgs } = await pi();
    let truncated = 0;
    for (const c of corpora) {
      for (const leaf of c.leaves) {
        const ms = projectPath(await pathTo(c, leaf)).messages;
        const ours = serializeConversation(convertToLlm(ms));
        assert.equal(ours, api.serializeConversation(msgs.convertToLlm(ms)), c.name);
        truncated += (ours.match(/more characters truncated\]/g) ?? []).length;
      }
    }
    assert.ok(truncated > 10, `tool results truncated: ${truncated}`);
  });

  test('file operations: extract, computeFileLists, formatFileOperations', async () => {
    const { utils } = await pi();
    for (const c of corpora) {
      const ms = projectPath(await pathTo(c, c.session.leafId!)).messages;
      const piOps = utils.createFileOps();
      for (const m of ms) utils.extractFileOpsFromMessage(m, piOps);
      const { createFileOps, extractFileOpsFromMessage } = await import('../../src/core/summary/fileOps.js');
      const ours = createFileOps();
      for (const m of ms) extractFileOpsFromMessage(m, ours);
      assert.deepEqual(ours, piOps, c.name);
      const lists = computeFileLists(ours);
      assert.deepEqual(lists, utils.computeFileLists(piOps));
      assert.equal(
        formatFileOperations(lists.readFiles, lists.modifiedFiles),
        utils.formatFileOperations(lists.readFiles, lists.modifiedFiles),
      );
    }
    assert.equal(formatFileOperations([], []), utils.formatFileOperations([], []));
    assert.equal(formatFileOperations(['a'], []), utils.formatFileOperations(['a'], []));
    assert.equal(formatFileOperations([], ['b', 'c']), utils.formatFileOperations([], ['b', 'c']));
  });

  test('findCutPoint (raw entries) for several budgets and start points', async () => {
    const { api } = await pi();
    let split = 0;
    for (const c of corpora) {
      for (const leaf of c.leaves) {
        const path = await pathTo(c, leaf);
        for (const keep of [1, 300, 2000, 20000, 1e9]) {
          for (const start of [0, Math.floor(path.length / 3)]) {
            const ours = findCutPoint(path, start, path.length, keep);
            assert.deepEqual(
              ours,
              api.findCutPoint(path, start, path.length, keep),
              `${c.name} keep=${keep} start=${start}`,
            );
            if (ours.isSplitTurn) split++;
          }
        }
      }
    }
    assert.ok(split > 5, `split turns seen: ${split}`);
  });

  test('prepareCompaction over the projected path', async () => {
    const { cmp } = await pi();
    const seen = { prepared: 0, split: 0, previous: 0, none: 0, recovery: 0 };
    for (const c of corpora) {
      for (const leaf of c.leaves) {
        const path = await pathTo(c, leaf);
        for (const keep of [10, 50, 100, 1000, 5000, 20000]) {
          const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: keep };
          const ours = prepareCompaction(path, settings);
          const theirs = cmp.prepareCompaction(path, settings);
          const label = `${c.name} leaf=${leaf} keep=${keep}`;
          if (!theirs) {
            assert.equal(ours, undefined, label);
            seen.none++;
            continue;
          }
          assert.ok(ours, label);
          const { summarizedEntryIds: _a, keptEntryIds: _b, keptTokens: _c, systemMessage: _d, ...core } = ours;
          assert.deepEqual(core, theirs, label);
          seen.prepared++;
          if (ours.isSplitTurn) seen.split++;
          if (ours.previousSummary !== undefined) seen.previous++;
          const kept = path.find((e) => e.id === ours.firstKeptEntryId);
          if (
            kept?.type === 'message' &&
            projectPath(path).entries.find((pe) => pe.entry.id === kept.id)?.messages.length === 0
          )
            seen.recovery++;
        }
      }
    }
    assert.ok(
      seen.prepared > 100 && seen.split > 5 && seen.previous > 10 && seen.none > 0 && seen.recovery > 0,
      JSON.stringify(seen),
    );
  });

  test('collectEntriesForBranchSummary and prepareBranchEntries', async () => {
    const { api } = await pi();
    let pairs = 0;
    let summariesFitted = 0;
    for (const c of corpora) {
      const rnd = mulberry32(7);
      const sm = await piManager(c);
      for (let k = 0; k < 25; k++) {
        const from = c.entries[Math.floor(rnd() * c.entries.length)].id;
        const to = c.entries[Math.floor(rnd() * c.entries.length)].id;
        const theirs = api.collectEntriesForBranchSummary(sm, from, to);
        const ours = collectBranchEntries(await pathTo(c, from), c.session.index.branch(to));
        assert.equal(ours.commonAncestorId, theirs.commonAncestorId, `${c.name} ${from}->${to}`);
        assert.deepEqual(
          ours.entries.map((e) => e.id),
          theirs.entries.map((e: SessionEntry) => e.id),
        );
        for (const budget of [0, 300, 3000, 30000]) {
          const o = prepareBranchEntries(ours.entries, budget);
          const t = api.prepareBranchEntries(theirs.entries, budget);
          assert.deepEqual(o.messages, t.messages, `${c.name} budget=${budget}`);
          assert.equal(o.totalTokens, t.totalTokens);
          assert.deepEqual(o.fileOps, t.fileOps);
          if (budget && o.totalTokens > budget) summariesFitted++;
        }
        pairs++;
      }
    }
    assert.ok(pairs >= 150);
    assert.ok(summariesFitted > 0, 'the 90 % rule for summaries was exercised');
  });

  test("planBranchSummary (partial reads of long branches) gives pi's result for budgets up to its cap", async () => {
    const { api } = await pi();
    let partial = 0;
    for (const c of corpora) {
      const rnd = mulberry32(5);
      const sm = await piManager(c);
      for (let k = 0; k < 10; k++) {
        const target = c.entries[Math.floor(rnd() * c.entries.length)].id;
        const plan = await planBranchSummary(c.session, target, { tokenCap: 3000, chunk: 16 });
        const theirs = api.collectEntriesForBranchSummary(sm, c.session.leafId, target);
        assert.equal(plan.totalEntries, theirs.entries.length);
        if (plan.tokenCap !== Infinity) partial++;
        for (const budget of [1, 300, 3000]) {
          const o = prepareBranchEntries(plan.entries, budget);
          const t = api.prepareBranchEntries(theirs.entries, budget);
          assert.deepEqual(o.messages, t.messages, `${c.name} ${target} budget=${budget}`);
          assert.equal(o.totalTokens, t.totalTokens);
          assert.deepEqual(o.fileOps, t.fileOps);
        }
      }
    }
    assert.ok(partial > 5, `partial plans: ${partial}`);
  });

  test('the compaction line equals pi appendCompaction (same id and time)', async () => {
    for (const c of corpora) {
      const sm = await piManager(c, c.session.leafId!);
      const path = await pathTo(c, c.session.leafId!);
      const details = { readFiles: ['r.md'], modifiedFiles: ['m.ts'] };
      const usage = {
        input: 1,
        output: 2,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 3,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      };
      const id = sm.appendCompaction('S', path[0].id, 1234, details, false, usage);
      const theirs = sm.getEntry(id);
      const ours = buildCompactionEntry({
        id,
        parentId: c.session.leafId,
        timestamp: theirs.timestamp,
        summary: 'S',
        firstKeptEntryId: path[0].id,
        tokensBefore: 1234,
        details,
        usage,
        fromHook: false,
        systemMessage: getCurrentSystemMessage(projectPath(path).messages),
      });
      assert.equal(JSON.stringify(ours), JSON.stringify(theirs), c.name);
      // retain-none: firstKeptEntryId = own id
      const id2 = sm.appendCompaction('S2', null, 1, undefined, undefined, undefined);
      const t2 = sm.getEntry(id2);
      const o2 = buildCompactionEntry({
        id: id2,
        parentId: id,
        timestamp: t2.timestamp,
        summary: 'S2',
        firstKeptEntryId: null,
        tokensBefore: 1,
        systemMessage: getCurrentSystemMessage(projectPath([...path, theirs]).messages),
      });
      assert.equal(JSON.stringify(o2), JSON.stringify(t2), `${c.name} retain-none`);
    }
  });
});
