// pi-tree's summaries and compactions against pi 1.6.0 itself: the pure functions compared with pi's
// on generated sessions and on copies of real sessions; pi's own generateBranchSummary/compact and
// ours run against the same loopback endpoint; and pi opening files after a pi-tree summary or
// compaction and building the context we expect.
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { convertToLlm, projectPath } from '../../src/core/context.js';
import { OpenAICompatibleModel } from '../../src/core/models/openaiCompatible.js';
import { Session } from '../../src/core/session.js';
import {
  buildCompactionEntry,
  calculateContextTokens,
  collectBranchEntries,
  commitBranchSummary,
  commitCompaction,
  computeFileLists,
  estimateContextTokens,
  estimateTokens,
  findCutPoint,
  formatFileOperations,
  getCurrentSystemMessage,
  planBranchSummary,
  planCompaction,
  prepareBranchEntries,
  prepareCompaction,
  serializeConversation,
  summarizeBranch,
  summarizeCompaction,
} from '../../src/core/summary/index.js';
import type { SessionEntry } from '../../src/core/types.js';
import { completionSse, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { mulberry32, randomSession } from '../support/randomSession.js';
import { SessionBuilder } from '../support/sessionBuilder.js';
import { tempDir } from '../support/tmp.js';

const PI = resolve('node_modules/@earendil-works/pi-coding-agent/dist');
const FIXTURES = '/work/shared/fixtures/real';

interface Pi {
  api: any;
  cmp: any;
  utils: any;
  msgs: any;
  ai: any;
}
let piP: Promise<Pi> | undefined;
function pi(): Promise<Pi> {
  piP ??= (async () => ({
    api: await import('@earendil-works/pi-coding-agent'),
    cmp: await import(pathToFileURL(join(PI, 'core/compaction/compaction.js')).href),
    utils: await import(pathToFileURL(join(PI, 'core/compaction/utils.js')).href),
    msgs: await import(pathToFileURL(join(PI, 'core/messages.js')).href),
    ai: await import('@earendil-works/pi-ai'),
  }))();
  return piP;
}

interface Corpus {
  name: string;
  file: string;
  session: Session;
  entries: SessionEntry[];
  /** Leaves to test, spread over the file (always including the real leaf). */
  leaves: string[];
}

function tmp(): string {
  return tempDir('pi-tree-interop-');
}

async function corpus(name: string, file: string, leafCount = 14): Promise<Corpus> {
  const session = await Session.open(file);
  const entries = (await session.load(session.index.live())).filter((e): e is SessionEntry => !!e);
  const rnd = mulberry32(entries.length);
  const leaves = new Set<string>([session.leafId!]);
  while (leaves.size < Math.min(leafCount, entries.length)) leaves.add(entries[Math.floor(rnd() * entries.length)].id);
  return { name, file, session, entries, leaves: [...leaves] };
}

let corpora: Corpus[] = [];
before(async () => {
  const list: Corpus[] = [];
  for (const seed of [1, 2, 3, 4, 5, 6]) list.push(await corpus(`random-${seed}`, randomSession(seed, 320).write(tmp())));
  list.push(await corpus('recovery', recoverySession().write(tmp()), 40));
  for (const f of readdirSync(FIXTURES).filter((x) => x.endsWith('.jsonl'))) {
    const copy = join(tmp(), f);
    copyFileSync(join(FIXTURES, f), copy);
    list.push(await corpus(f, copy, 8));
  }
  corpora = list;
});

/**
 * Overflow recoveries as pi writes them: a failed assistant attempt hidden by a context edit at the
 * end of a branch, in several variants (plain, with an outside replacement edit, with metadata).
 */
function recoverySession(): SessionBuilder {
  const b = new SessionBuilder();
  const T = (c: string, n = 400) => c.repeat(n);
  const root = b.user(T('r'));
  b.assistant({ text: T('s') });
  const variants: ((u: string) => void)[] = [
    () => {
      const a = b.assistant({ text: T('x'), stopReason: 'length' });
      b.contextEdit(a, null);
    },
    (u) => {
      const a = b.assistant({ text: T('x'), stopReason: 'length' });
      b.contextEdit(a, null);
      b.contextEdit(u, { content: 'shorter' });
    },
    () => {
      const a = b.assistant({ text: T('x'), stopReason: 'length' });
      b.contextEdit(a, null);
      b.label(a, 'failed');
      b.modelChange();
    },
    () => {
      const a = b.assistant({ text: T('x'), calls: [{ name: 'read', args: { path: 'p' }, id: 'q' }] });
      b.toolResult('q', 'read', T('y'));
      b.contextEdit(a, null);
    },
  ];
  for (const v of variants) {
    b.at(root);
    b.assistant({ text: T('t') });
    const u = b.user(T('u', 200));
    v(u);
  }
  return b;
}

/** pi's SessionManager over exactly our entries (ids as pi-tree sees them). */
async function piManager(c: Corpus, leafId?: string): Promise<any> {
  const { api } = await pi();
  const sm = api.SessionManager.inMemory(c.session.header.cwd || '/', undefined, [structuredClone(c.session.header), ...structuredClone(c.entries)]);
  if (leafId) sm.branch(leafId);
  return sm;
}

async function pathTo(c: Corpus, id: string): Promise<SessionEntry[]> {
  return c.session.getBranch(id);
}

describe('pure functions equal pi 1.6.0', () => {
  test('estimateTokens, calculateContextTokens, getCurrentSystemMessage, estimateContextTokens', async () => {
    const { api, cmp, ai } = await pi();
    let messages = 0;
    for (const c of corpora) {
      for (const leaf of c.leaves) {
        const ms = projectPath(await pathTo(c, leaf)).messages;
        for (const m of ms) {
          assert.equal(estimateTokens(m), api.estimateTokens(m), `${c.name}: ${m.role}`);
          if (m.role === 'assistant' && m.usage) assert.equal(calculateContextTokens(m.usage as never), api.calculateContextTokens(m.usage));
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
      assert.equal(formatFileOperations(lists.readFiles, lists.modifiedFiles), utils.formatFileOperations(lists.readFiles, lists.modifiedFiles));
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
            assert.deepEqual(ours, api.findCutPoint(path, start, path.length, keep), `${c.name} keep=${keep} start=${start}`);
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
          if (kept?.type === 'message' && projectPath(path).entries.find((pe) => pe.entry.id === kept.id)?.messages.length === 0) seen.recovery++;
        }
      }
    }
    assert.ok(seen.prepared > 100 && seen.split > 5 && seen.previous > 10 && seen.none > 0 && seen.recovery > 0, JSON.stringify(seen));
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
      const usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
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

describe('same endpoint, same answers: pi and pi-tree store the same summaries', () => {
  let lb: Loopback;
  before(async () => {
    lb = await startLoopback((r) => {
      const body = r.body;
      const prompt: string = typeof body.messages[1].content === 'string' ? body.messages[1].content : body.messages[1].content[0].text;
      return completionSse(prompt.startsWith('# Conversation') ? '## Original Request\nPREFIX' : '## Goal\nHISTORY', { pieces: 2 });
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
  const ourModel = (contextWindow: number) => new OpenAICompatibleModel({ baseUrl: lb.url, model: 'loop', contextWindow, maxOutputTokens: 4096 });
  const promptOf = (r: { body: any }): string => (typeof r.body.messages[1].content === 'string' ? r.body.messages[1].content : r.body.messages[1].content[0].text);
  /** The part of a prompt that is data, not instructions. */
  const dataPart = (p: string) =>
    p.startsWith('# Conversation')
      ? p.slice(0, p.indexOf('\n\n# Instructions\n'))
      : p.slice(0, p.lastIndexOf('</conversation>\n\n') + 17) + (p.match(/<previous-summary>\n[\s\S]*?\n<\/previous-summary>\n\n/)?.[0] ?? '');

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
        const theirs = await api.generateBranchSummary(entries, { model: piModel(window), apiKey: 'k', signal: new AbortController().signal, reserveTokens: 16384, customInstructions: 'FOCUS' });
        const piRequests = lb.requests.splice(0);
        const draft = await summarizeBranch(plan, ourModel(window), { reserveTokens: 16384, focus: 'FOCUS' });
        const ourRequests = lb.requests.splice(0);
        assert.equal(ourRequests.length, piRequests.length, c.name);
        if (piRequests.length) {
          assert.equal(dataPart(promptOf(ourRequests[0])), dataPart(promptOf(piRequests[0])), `${c.name} conversation`);
          assert.ok(promptOf(ourRequests[0]).endsWith('\n\nAdditional focus: FOCUS') && promptOf(piRequests[0]).endsWith('\n\nAdditional focus: FOCUS'));
          assert.deepEqual(draft.summary!.usage, theirs.usage);
        }
        assert.equal(draft.summary!.summary, theirs.summary, `${c.name} stored summary`);
        assert.deepEqual(draft.summary!.details, { readFiles: theirs.readFiles ?? [], modifiedFiles: theirs.modifiedFiles ?? [] });
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
          const theirs = await api.compact(piPrep, piModel(128000), 'k', undefined, 'FOCUS', new AbortController().signal);
          const piRequests = lb.requests.splice(0);
          const ours = await summarizeCompaction(ourPrep!, ourModel(128000), { focus: 'FOCUS' });
          const ourRequests = lb.requests.splice(0);
          assert.equal(ourRequests.length, piRequests.length);
          ourRequests.forEach((r, i) => assert.equal(dataPart(promptOf(r)), dataPart(promptOf(piRequests[i])), `${c.name} request ${i}`));
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
      const result = await commitBranchSummary(session, await summarizeBranch(await planBranchSummary(session, target), model()));
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
      assert.match(last.summary, /^The user explored a different conversation branch before returning here\.\nSummary of that exploration:\n\n## Goal\nSUMMARY/);
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
