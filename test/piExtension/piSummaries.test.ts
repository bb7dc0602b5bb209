// Summaries and compactions written by pi itself (its prompt, the user's pi models): through a running
// pi's bridge, or a headless pi started on a private copy when none runs. The user's file is untouched
// until the commit, and pi opening it afterwards sends the context pi-tree predicts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findBridge, pidAlive } from '../../src/core/piClient/discovery.js';
import { SessionRepository } from '../../src/core/session/repository.js';
import { PiGateway } from '../../src/host/runningPi/piGateway.js';
import { SessionActions } from '../../src/host/panels/sessionActions.js';
import { findPi } from '../../src/core/platform/piProgram.js';
import {
  commitCompactionByPi,
  compactByPi,
  previewBranchSummaryByPi,
  type ByPiOptions,
} from '../../src/core/piClient/piSummaries.js';
import { Session } from '../../src/core/session/session.js';
import { completionSse, startLoopback, type Loopback, type RecordedRequest } from '../support/loopbackOpenAI.js';
import {
  assistantOf,
  BRIDGE,
  makePiEnv,
  PI_START_MS,
  PiRpc,
  piShim,
  sessionBuilder,
  writeSession,
  type PiEnv,
} from '../support/piRpc.js';
import { assertPromptMatches, fileEntries, waitForBridge } from './helpers.js';

const isSummary = (r: RecordedRequest) => JSON.stringify(r.body?.messages ?? []).includes('<conversation>');

describe('summaries and compaction by pi', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let opts: ByPiOptions;
  const ids: Record<string, string> = {};
  let n = 0;

  /** A fresh session: main line u1 a1 u2 a2, and a side branch u3 a3 from a1 where the leaf is. */
  function session(): string {
    const b = sessionBuilder(pe.workDir);
    ids.u1 = b.user('first question');
    ids.a1 = assistantOf(b, 'first answer '.repeat(20));
    ids.u2 = b.user('second question');
    ids.a2 = assistantOf(b, 'second answer '.repeat(20));
    b.at(ids.a1);
    ids.u3 = b.user('side question');
    ids.a3 = assistantOf(b, 'side answer '.repeat(20));
    return writeSession(b, join(pe.workDir, `s${++n}.jsonl`));
  }

  before(async () => {
    lb = await startLoopback((req, i) => completionSse(isSummary(req) ? `PI SUMMARY ${i}` : `answer ${i}`));
    pe = makePiEnv(lb, { compaction: { enabled: false, keepRecentTokens: 20, reserveTokens: 100 } });
    const bin = piShim(pe.workDir);
    // "pi" is found through PATH, as a user's configured command would be.
    const pi = await findPi('pi', { env: { PATH: `${bin}:/usr/bin:/bin` } });
    assert.equal(pi.program, join(bin, 'pi'));
    opts = {
      discovery: { env: pe.env },
      headless: { pi, bridgeFile: BRIDGE, env: pe.env, startTimeoutMs: PI_START_MS },
    };
  });

  after(() => lb?.close());

  it("no pi running: a headless pi on a copy writes the preview with pi's prompt; the user's file is untouched until commit", async () => {
    const file = session();
    const bytes = readFileSync(file);
    const draft = await previewBranchSummaryByPi(file, ids.a2, {
      ...opts,
      customInstructions: 'focus on the side question',
    });
    assert.equal(draft.via, 'headless');
    assert.equal(draft.fromLeafId, ids.a3);
    assert.match(draft.summary!, /^The user explored a different conversation branch[\s\S]*PI SUMMARY \d+/);
    const req = lb.requests.filter(isSummary).at(-1)!;
    assert.match(JSON.stringify(req.body.messages), /Additional focus: focus on the side question/);
    assert.match(JSON.stringify(req.body.messages), /side question/);
    assert.doesNotMatch(
      JSON.stringify(req.body.messages),
      /second question/,
      'only the branch being left is summarized',
    );
    assert.deepEqual(readFileSync(file), bytes, "the preview wrote nothing to the user's file");
    assert.equal(pidAlive(draft.pid), false, 'the headless pi is gone');

    // The commit as the host's summary service writes a headless pi's draft: pi's summary, moved to as pi moves.
    const s = await Session.open(file);
    assert.equal(s.leafId, draft.fromLeafId);
    const done = await s.moveTo(draft.newLeafId, {
      summary: `${draft.summary}\nEdited.`,
      details: draft.details,
      fromHook: false,
    });
    assert.equal(s.leafId, done.summaryId);
    const entry = fileEntries(file).find((e) => e.id === done.summaryId)!;
    assert.deepEqual(
      [entry.type, entry.parentId, entry.fromId, entry.summary.endsWith('Edited.')],
      ['branch_summary', ids.a2, ids.a3, true],
    );

    // pi, opened on the file afterwards, continues with the summary in its context.
    const pi = PiRpc.start(file, pe);
    try {
      await waitForBridge(file, pe.env, pi);
      await pi.prompt('continue after summary');
      await assertPromptMatches(file, lb.requests, 'continue after summary', done.summaryId!);
    } finally {
      await pi.stop();
    }
  });

  it('no pi running: a headless compaction is a draft; committed, pi resumes with it', async () => {
    const file = session();
    const bytes = readFileSync(file);
    const draft = await compactByPi(file, { ...opts, customInstructions: 'keep the side answer' });
    assert.equal(draft.committed, false);
    if (draft.committed) return;
    assert.equal(draft.leafId, ids.a3);
    assert.match(draft.summary, /PI SUMMARY \d+/);
    assert.deepEqual(readFileSync(file), bytes);
    const c = await commitCompactionByPi(file, draft, { discovery: opts.discovery });
    const entry = fileEntries(file).find((e) => e.id === c.compactionId)!;
    assert.deepEqual(
      [entry.type, entry.parentId, entry.firstKeptEntryId],
      ['compaction', ids.a3, draft.firstKeptEntryId],
    );
    const pi = PiRpc.start(file, pe);
    try {
      await waitForBridge(file, pe.env, pi);
      await pi.prompt('continue after compaction');
      await assertPromptMatches(file, lb.requests, 'continue after compaction', c.compactionId);
    } finally {
      await pi.stop();
    }
  });

  it('with pi running: the running pi previews and commits (no second pi), and compacts at once', async () => {
    const file = session();
    const pi = PiRpc.start(file, pe);
    try {
      const info = await waitForBridge(file, pe.env, pi);
      const draft = await previewBranchSummaryByPi(file, ids.a2, opts);
      assert.deepEqual([draft.via, draft.pid], ['running', info.record.pid]);
      // The commit as the host sends it: the move with the reviewed summary, through the running pi.
      const gateway = new PiGateway({
        find: (f) => findBridge(f, opts.discovery),
        ui: { askWait: async () => false, waiting: (_m, work) => work },
      });
      const actions = new SessionActions(await Session.open(file), file, {
        repo: () => new SessionRepository({ agentDir: pe.agentDir, env: pe.env }),
        openTree: async () => {},
        confirmLiveWrite: () => Promise.reject(new Error('the live warning was shown: the commit went to the file')),
        gateway,
      });
      const moved = await actions.moveWithSummaryViaPi(ids.a2, draft.summary!, draft.details);
      const done = { summaryId: moved?.leafId };
      assert.equal(await pi.leaf(), done.summaryId);
      const entry = fileEntries(file).find((e) => e.id === done.summaryId)!;
      assert.deepEqual([entry.type, entry.summary], ['branch_summary', draft.summary]);

      const comp = await compactByPi(file, opts);
      assert.equal(comp.committed, true);
      if (!comp.committed) return;
      assert.equal(comp.previousLeafId, done.summaryId);
      assert.equal(await pi.leaf(), comp.compactionId);
      assert.ok(existsSync(info.recordFile), 'the running pi kept its bridge');
    } finally {
      await pi.stop();
    }
  });
});
