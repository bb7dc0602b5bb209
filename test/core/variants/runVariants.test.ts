// A run of variants with the real pi 1.6.0 (headless, the bridge loaded) against the loopback model:
// each variant's pi writes its answer into its own folder, the files it changed are counted against
// the code at the node, the user's check runs in each folder, at most `jobs` pis run at once, one
// variant is cancelled while the others finish, and bad input writes nothing.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { variantsRoot } from '../../../src/core/checkpoints/index.js';
import { readHeader } from '../../../src/core/index/sessionHeader.js';
import { Session } from '../../../src/core/session/session.js';
import {
  listVariants,
  runVariants,
  VariantsInputError,
  type VariantOutcome,
  type VariantProgress,
} from '../../../src/core/variants/index.js';
import { until } from '../../../scripts/lib/until.js';
import { BROKEN_ERROR } from '../../support/askPi.js';
import { gate } from '../../support/loopbackOpenAI.js';
import { PI_REPLY_MS, PI_START_MS } from '../../support/piRpc.js';
import { treeBytes } from '../../support/codingPi.js';
import { assistant, sessionText, tempDir, ts, user } from '../../support/tmp.js';
import { BRIDGE, PI_PROGRAM, startVariantsPi, VARIANT_PROMPT, type VariantsPi } from '../../support/variantsPi.js';

const loop = (id: string) => ({ provider: 'loop', id });

/** Every file and folder under `dir` (names only), or [] when it is not there. */
function listing(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: false }).map(String).sort();
}

describe('runVariants with pi 1.6.0', () => {
  let vp: VariantsPi;
  const base = () => ({
    agentDir: vp.pe.agentDir,
    sessionFile: vp.file,
    entryId: vp.nodeId,
    prompt: VARIANT_PROMPT,
    pi: PI_PROGRAM,
    bridge: BRIDGE,
    env: vp.pe.env,
  });

  before(async () => {
    vp = await startVariantsPi();
  });
  after(async () => {
    await vp?.stop();
  });

  it('runs three variants, two at a time: each writes in its own folder, files counted, the check passes in one and fails in another', async () => {
    const userFiles = treeBytes(vp.pe.workDir);
    vp.firstHold = gate();
    vp.inFlight.max = 0;
    const events: VariantProgress[] = [];
    const run = runVariants({
      ...base(),
      models: [loop('loop-model'), loop('other-model'), loop('loop-model')],
      check: 'grep -q ok answer.txt',
      jobs: 2,
      onProgress: (p) => events.push(p),
    });
    // Two first answers held: the third variant waits its turn in the queue.
    await until(() => vp.inFlight.now === 2, PI_START_MS * 2, 'two variants asking the model');
    assert.deepEqual(
      run.outcomes.map((o) => o.phase).sort(),
      ['queued', 'running', 'running'],
      'the third variant is still queued while two pis run',
    );
    vp.firstHold.open();
    const outs = await run.done;
    vp.firstHold = undefined;
    assert.ok(vp.inFlight.max <= 2, `at most 2 pis at once (saw ${vp.inFlight.max})`);
    assert.deepEqual(
      outs.map((o) => [o.index, o.model, o.phase]),
      [
        [0, 'loop/loop-model', 'done'],
        [1, 'loop/other-model', 'done'],
        [2, 'loop/loop-model', 'done'],
      ],
      JSON.stringify(outs.map((o) => o.error)),
    );
    for (const o of outs) {
      const bad = o.model === 'loop/other-model';
      assert.equal(
        readFileSync(join(o.folder!, 'answer.txt'), 'utf8'),
        bad ? 'bad\n' : 'ok\nfine\n',
        'written in its own folder',
      );
      assert.deepEqual(o.files, [{ path: 'answer.txt', status: 'created', added: bad ? 1 : 2, removed: 0 }]);
      assert.equal(o.check?.exitCode, bad ? 1 : 0, o.check?.output);
      assert.equal(o.answer, `${o.model!.split('/')[1]}: wrote it`);
      assert.ok(o.tokens && o.tokens.total > 0 && o.tokens.input > 0, JSON.stringify(o.tokens));
      assert.ok(typeof o.cost === 'number' && o.cost > 0);
      assert.ok(typeof o.ms === 'number' && o.ms > 0);
      const session = await Session.open(o.session!);
      assert.equal(session.leafId, o.leafId, "the leaf is pi's last entry");
      assert.equal(session.leafId, o.answerId);
      assert.equal(readHeader(o.session!)!.cwd, o.folder, "the variant's session runs in its folder");
    }
    assert.equal(new Set(outs.map((o) => o.folder)).size, 3, 'three folders');
    const recs = listVariants(vp.pe.agentDir).filter((r) => outs.some((o) => o.variantId === r.id));
    assert.deepEqual(
      recs.map((r) => [r.state, r.pid]),
      [
        ['done', undefined],
        ['done', undefined],
        ['done', undefined],
      ],
    );
    assert.ok(
      recs.every((r) => outs.find((o) => o.variantId === r.id)!.leafId === r.leafId),
      'the records hold the leaves',
    );
    // every phase was heard, and the answers streamed
    for (const i of [0, 1, 2]) {
      const phases = events
        .filter(
          (e): e is Extract<VariantProgress, { kind: 'outcome' }> => e.kind === 'outcome' && e.outcome.index === i,
        )
        .map((e) => e.outcome.phase);
      assert.deepEqual(phases, ['preparing', 'running', 'checking', 'done']);
      const text = events
        .filter((e): e is Extract<VariantProgress, { kind: 'delta' }> => e.kind === 'delta' && e.index === i)
        .map((e) => e.delta)
        .join('');
      assert.equal(text, outs[i].answer);
    }
    assert.deepEqual(treeBytes(vp.pe.workDir), userFiles, "the user's folder and its .git are as they were");
  });

  it('cancels one variant while the others finish', async () => {
    const hold = vp.newHold();
    let slowSpeaks = false;
    const run = runVariants({
      ...base(),
      models: [loop('loop-model'), loop('slow-model'), loop('other-model')],
      jobs: 3,
      onProgress: (p) => {
        if (p.kind === 'delta' && p.index === 1) slowSpeaks = true;
      },
    });
    await until(() => slowSpeaks, PI_START_MS * 2, 'the slow variant answering');
    run.cancel(1);
    const outs = await run.done;
    hold.open();
    assert.deepEqual(
      outs.map((o) => o.phase),
      ['done', 'cancelled', 'done'],
      JSON.stringify(outs.map((o) => o.error)),
    );
    assert.match(outs[1].error!, /cancelled/);
    assert.ok(outs[1].session && existsSync(outs[1].session), 'what the cancelled pi wrote stays');
    const lines = readFileSync(outs[1].session!, 'utf8');
    assert.ok(lines.endsWith('\n'), 'whole lines');
    const rec = listVariants(vp.pe.agentDir).find((r) => r.id === outs[1].variantId);
    assert.equal(rec?.state, 'failed');
    assert.equal(rec?.interrupted, undefined, 'no running pi is left in its record');
    assert.equal(outs[0].files?.[0]?.path, 'answer.txt');
    assert.equal(outs[2].files?.[0]?.path, 'answer.txt');
  });

  it('a variant whose model call fails says why in pi’s words; the others finish', async () => {
    const outs = await runVariants({ ...base(), models: [loop('broken-model'), loop('loop-model')], check: 'true' })
      .done;
    assert.deepEqual(
      outs.map((o) => o.phase),
      ['failed', 'done'],
    );
    assert.match(outs[0].error!, new RegExp(BROKEN_ERROR));
    assert.equal(outs[0].check, null, 'no check after a failed turn');
    assert.deepEqual(outs[0].files, [], 'it changed nothing');
    assert.equal(listVariants(vp.pe.agentDir).find((r) => r.id === outs[0].variantId)?.state, 'failed');
    assert.equal(outs[1].check?.exitCode, 0);
  });

  it('from a user message goes instead of it: forked at its parent, the prompt beside it', async () => {
    const user = (await Session.open(vp.file)).index.get(vp.userId)!;
    const [o] = await runVariants({ ...base(), entryId: user.id }).done;
    assert.equal(o.phase, 'done', o.error);
    const variant = await Session.open(o.session!);
    const path = variant.index.branch(variant.leafId).map((e) => e.id);
    assert.ok(!path.includes(user.id), 'the user message is not on the variant’s path');
    assert.ok(path.includes(user.parentId!), 'its parent is');
    // (pi puts its startup entries and its system prompt between: no turn of the conversation)
    const branch = variant.index.branch(variant.leafId);
    const prompt = branch.findLast((e) => e.type === 'message' && e.role === 'user')!;
    const between = branch.slice(branch.findIndex((e) => e.id === user.parentId) + 1, branch.indexOf(prompt));
    assert.ok(
      between.every((e) => e.type !== 'message' || e.role === 'system'),
      `the prompt follows the user message’s parent: ${between.map((e) => `${e.type}:${e.role}`).join()}`,
    );
  });

  it('a cancel during the check stops it: the turn stays done in the record, the variant says cancelled', async () => {
    const run = runVariants({ ...base(), count: 1, check: 'echo started > started.txt; sleep 300' });
    await until(
      () => run.outcomes[0].folder && existsSync(join(run.outcomes[0].folder, 'started.txt')),
      PI_START_MS,
      'the check running',
    );
    run.cancel();
    const [o] = await run.done;
    assert.equal(o.phase, 'cancelled');
    assert.equal(o.error, 'cancelled during its check');
    assert.match(o.check!.output, /pi-tree: the check was cancelled\n$/);
    assert.equal(o.answer, 'loop-model: wrote it');
    assert.equal(listVariants(vp.pe.agentDir).find((r) => r.id === o.variantId)?.state, 'done');
  });

  it('writes nothing on bad input: an empty prompt, count 0, too many, an unknown entry, an unknown model', async () => {
    const sessions = join(vp.pe.workDir, '..', 'sessions');
    const before = { sessions: listing(sessions), variants: listing(variantsRoot(vp.pe.agentDir)) };
    assert.throws(() => runVariants({ ...base(), prompt: '  ' }), VariantsInputError);
    assert.throws(() => runVariants({ ...base(), count: 0 }), /count must be a whole number from 1 to 8, not 0/);
    assert.throws(() => runVariants({ ...base(), count: 9 }), VariantsInputError);
    assert.throws(() => runVariants({ ...base(), models: [] }), /from 1 to 8 models/);
    assert.throws(() => runVariants({ ...base(), jobs: 0 }), /jobs/);
    assert.throws(() => runVariants({ ...base(), check: ' ' }), /check/);
    await assert.rejects(runVariants({ ...base(), entryId: 'nope1234' }).done, /no entry nope1234/);
    await assert.rejects(runVariants({ ...base(), sessionFile: join(sessions, 'gone.jsonl') }).done, /no such file/);
    const unknown = runVariants({ ...base(), models: [loop('loop-model'), loop('no-such-model')] });
    await assert.rejects(
      unknown.done,
      (e: Error) => e instanceof VariantsInputError && /Model not found: loop\/no-such-model/.test(e.message),
    );
    assert.deepEqual(
      unknown.outcomes.map((o: VariantOutcome) => o.phase),
      ['queued', 'queued'],
    );
    assert.deepEqual({ sessions: listing(sessions), variants: listing(variantsRoot(vp.pe.agentDir)) }, before);
  });

  it('a variant cancelled while queued is never made', async () => {
    const ac = new AbortController();
    vp.firstHold = gate();
    const run = runVariants({ ...base(), count: 2, jobs: 1, signal: ac.signal });
    await until(() => vp.inFlight.now === 1, PI_START_MS, 'the first variant asking the model');
    run.cancel(1);
    await until(() => run.outcomes[1].phase === 'cancelled', PI_REPLY_MS, 'the queued one cancelled');
    assert.equal(run.outcomes[1].variantId, undefined, 'nothing was made for it');
    ac.abort();
    vp.firstHold.open();
    const outs = await run.done;
    vp.firstHold = undefined;
    assert.deepEqual(
      outs.map((o) => o.phase),
      ['cancelled', 'cancelled'],
    );
  });
});

describe('runVariants from a node whose code is not known', () => {
  it('refuses once, before any variant is made: one message, no folder, no session', async () => {
    const root = tempDir('pi-tree-nocode-');
    const agentDir = join(root, 'agent');
    const workDir = join(root, 'project');
    const sessions = join(root, 'sessions');
    for (const d of [agentDir, workDir, sessions]) mkdirSync(d, { recursive: true });
    const file = join(sessions, 'no-checkpoints.jsonl');
    const header = {
      type: 'session',
      version: 3,
      id: '01990000-0000-7000-8000-00000000c0de',
      timestamp: ts(),
      cwd: workDir,
    };
    writeFileSync(
      file,
      sessionText(
        [user('u1', null, 'q'), assistant('a1', 'u1', 'a'), user('u2', 'a1', 'q2'), assistant('a2', 'u2', 'b')],
        header,
      ),
    );
    const run = runVariants({
      agentDir,
      sessionFile: file,
      entryId: 'a1',
      prompt: 'go',
      count: 3,
      pi: PI_PROGRAM,
      bridge: BRIDGE,
    });
    await assert.rejects(
      run.done,
      (e: Error) =>
        e instanceof VariantsInputError &&
        /the code at a1 is not known: no checkpoint at or above it.*; nothing was made$/.test(e.message),
    );
    assert.deepEqual(
      run.outcomes.map((o) => o.phase),
      ['queued', 'queued', 'queued'],
      'no variant started',
    );
    assert.deepEqual(listing(variantsRoot(agentDir)), [], 'no variant folder');
    assert.deepEqual(readdirSync(sessions), ['no-checkpoints.jsonl'], 'no forked session');
  });
});
