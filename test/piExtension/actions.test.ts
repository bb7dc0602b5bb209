// The bridge inside the real pi 1.6.0 (RPC mode, loopback model): every action requested through
// pi-tree's client changes the running pi, and pi's next model request is exactly what
// `pi-tree context FILE --leaf ID` predicts.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BridgeClient } from '../../src/core/piClient/client.js';
import type { BridgeEvent } from '../../src/core/piClient/protocol.js';
import { Session } from '../../src/core/session/session.js';
import { completionSse, startLoopback, type Loopback, type RecordedRequest } from '../support/loopbackOpenAI.js';
import { assistantOf, makePiEnv, PiRpc, sessionBuilder, writeSession, type PiEnv } from '../support/piRpc.js';
import { assertPromptMatches, fileEntries, waitForBridge } from './helpers.js';

const isSummaryRequest = (r: RecordedRequest) => JSON.stringify(r.body?.messages ?? []).includes('<conversation>');

describe('bridge actions in a running pi', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let pi: PiRpc;
  let file: string;
  let client: BridgeClient;
  const events: BridgeEvent[] = [];
  const ids: Record<string, string> = {};

  before(async () => {
    lb = await startLoopback((req, n) =>
      completionSse(isSummaryRequest(req) ? `SUMMARY ${n}: the branch tried another question.` : `answer ${n}`),
    );
    // keepRecentTokens small so the short test session can be compacted.
    pe = makePiEnv(lb, { compaction: { enabled: false, keepRecentTokens: 20, reserveTokens: 100 } });
    const b = sessionBuilder(pe.workDir);
    ids.u1 = b.user('first question');
    ids.a1 = assistantOf(b, 'first answer');
    ids.u2 = b.user('second question');
    ids.a2 = assistantOf(b, 'second answer');
    b.at(ids.a1);
    ids.u3 = b.user('other question');
    ids.a3 = assistantOf(b, 'other answer');
    file = writeSession(b, join(pe.workDir, '2026-03-01T10-00-00-000Z_019b8f3a-0000-7000-8000-000000000001.jsonl'));
    pi = PiRpc.start(file, pe);
    const info = await waitForBridge(file, pe.env, pi);
    assert.equal(info.state.leafId, ids.a3);
    client = await BridgeClient.connect(info.record);
    await client.subscribe((ev) => events.push(ev));
  });

  after(async () => {
    client?.close();
    await pi?.stop();
    await lb?.close();
  });

  // (how fast: `npm run bench`, "a move through the bridge")
  it('goto moves pi, is durable in the file, and the next prompt sends the predicted context', async () => {
    const r = await client.request('goto', { targetId: ids.a2 });
    assert.equal(await pi.leaf(), ids.a2);
    assert.deepEqual(
      { moved: r.moved, leafId: r.leafId, previousLeafId: r.previousLeafId },
      { moved: true, leafId: ids.a2, previousLeafId: ids.a3 },
    );
    // pi wrote nothing for a plain move: the bridge's leaf record makes it durable.
    const last = fileEntries(file).at(-1)!;
    assert.deepEqual(
      { type: last.type, id: last.id, parentId: last.parentId, targetId: last.targetId, fromId: last.fromId },
      { type: 'leaf', id: r.leafRecordId, parentId: ids.a2, targetId: ids.a2, fromId: ids.a3 },
    );
    assert.equal((await Session.open(file)).leafId, ids.a2);
    assert.ok(events.some((e) => e.event === 'leafChanged' && e.leafId === ids.a2));
    assert.ok(events.some((e) => e.event === 'entriesAppended' && e.ids.includes(r.leafRecordId!)));

    await pi.prompt('third question');
    await assertPromptMatches(file, lb.requests, 'third question', ids.a2);
    ids.leafAfterPrompt = (await pi.leaf())!;
  });

  it('goto a user message puts the leaf on its parent and returns its text', async () => {
    const r = await client.request('goto', { targetId: ids.u2 });
    assert.equal(r.leafId, ids.a1);
    assert.equal(r.editorText, 'second question');
    assert.equal(await pi.leaf(), ids.a1);
    assert.equal((await Session.open(file)).leafId, ids.a1);
  });

  it('summaryPreview returns the summary pi would write (same model request), and a reviewed text is committed by pi', async () => {
    // From a3's branch back to a2: what would pi summarize?
    await client.request('goto', { targetId: ids.a3 });
    const before = lb.requests.length;
    const preview = await client.request('summaryPreview', {
      targetId: ids.a2,
      customInstructions: 'mention the question',
    });
    assert.equal(preview.fromLeafId, ids.a3);
    assert.match(preview.summary!, /SUMMARY \d+: the branch tried another question\./);
    assert.equal(lb.requests.length, before + 1);
    const previewRequest = lb.requests[before];
    assert.equal(await pi.leaf(), ids.a3, 'a preview moves nothing');
    const lines = fileEntries(file).length;

    // pi's own summarize (no review) sends the same request to the model.
    const own = await client.request('goto', {
      targetId: ids.a2,
      summarize: true,
      customInstructions: 'mention the question',
      ifLeaf: ids.a3,
    });
    const ownRequest = lb.requests.filter(isSummaryRequest).at(-1)!;
    assert.deepEqual(ownRequest.body.messages, previewRequest.body.messages);
    const written = fileEntries(file).find((e) => e.id === own.summaryId)!;
    assert.equal(written.type, 'branch_summary');
    assert.equal(written.parentId, ids.a2);
    assert.equal(written.fromId, ids.a3);
    assert.match(written.summary, /^The user explored a different conversation branch/);
    assert.equal(own.leafRecordId, undefined, "pi's summary entry is already the last line");
    assert.equal(fileEntries(file).length, lines + 1);
    assert.equal((await Session.open(file)).leafId, own.summaryId);
    await pi.prompt('after summary');
    await assertPromptMatches(file, lb.requests, 'after summary', own.summaryId!);

    // Reviewed: back to a3, preview, edit, commit the edited text.
    await client.request('goto', { targetId: ids.a3 });
    const p2 = await client.request('summaryPreview', { targetId: ids.a1 });
    const edited = `${p2.summary}\n\nEdited by the user.`;
    const committed = await client.request('goto', {
      targetId: ids.a1,
      summary: { text: edited, details: p2.details },
      ifLeaf: p2.fromLeafId,
    });
    const entry = fileEntries(file).find((e) => e.id === committed.summaryId)!;
    assert.equal(entry.summary, edited);
    assert.equal(entry.fromHook, true);
    assert.equal(entry.parentId, ids.a1);
    // A stale commit (pi moved on) is refused and writes nothing.
    const n = fileEntries(file).length;
    await assert.rejects(
      client.request('goto', { targetId: ids.a1, summary: { text: 'x' }, ifLeaf: ids.a3 }),
      (e: Error & { code?: string }) => e.code === 'stale',
    );
    assert.equal(fileEntries(file).length, n);
    await pi.prompt('after reviewed summary');
    await assertPromptMatches(file, lb.requests, 'after reviewed summary', committed.summaryId!);
  });

  it('label and name go through pi, once', async () => {
    const r = await client.request('label', { entryId: ids.a1, label: 'checkpoint' });
    assert.equal(r.changed, true);
    const tree = await pi.send({ type: 'get_tree' });
    const findLabel = (nodes: any[]): string | undefined => {
      for (const n of nodes) {
        if (n.entry.id === ids.a1) return n.label;
        const x = findLabel(n.children);
        if (x) return x;
      }
      return undefined;
    };
    assert.equal(findLabel(tree.tree), 'checkpoint');
    const n = fileEntries(file).length;
    assert.deepEqual(await client.request('label', { entryId: ids.a1, label: 'checkpoint' }), { changed: false });
    assert.equal(fileEntries(file).length, n, 'the same label again writes nothing');
    assert.equal((await Session.open(file)).index.labels.get(ids.a1)?.label, 'checkpoint');

    const nm = await client.request('name', { name: 'Bridge session' });
    assert.equal(nm.changed, true);
    assert.equal((await pi.send({ type: 'get_state' })).sessionName, 'Bridge session');
    assert.equal((await Session.open(file)).name, 'Bridge session');
    await assert.rejects(
      client.request('label', { entryId: 'ffffffff', label: 'x' }),
      (e: Error & { code?: string }) => e.code === 'not-found',
    );
  });

  it('compact is done by pi; moving back to previousLeafId undoes it', async () => {
    const leafBefore = await pi.leaf();
    const r = await client.request('compact', { customInstructions: 'keep it short' });
    assert.equal(r.previousLeafId, leafBefore);
    const entry = fileEntries(file).find((e) => e.id === r.compactionId)!;
    assert.equal(entry.type, 'compaction');
    assert.equal(entry.parentId, leafBefore);
    assert.equal(await pi.leaf(), r.compactionId);
    assert.equal((await Session.open(file)).leafId, r.compactionId);
    await pi.prompt('after compaction');
    await assertPromptMatches(file, lb.requests, 'after compaction', r.compactionId);

    const undo = await client.request('goto', { targetId: r.previousLeafId! });
    assert.equal(undo.leafId, r.previousLeafId);
    await pi.prompt('after undo');
    await assertPromptMatches(file, lb.requests, 'after undo', r.previousLeafId);
  });

  it('a person can type /tree-bridge in pi: goto and label work the same', async () => {
    const notes = () =>
      pi.records
        .filter((r) => r.type === 'extension_ui_request' && r.method === 'notify')
        .map((r) => String(r.message));
    assert.equal(
      (await pi.send({ type: 'prompt', message: `/tree-bridge goto ${ids.a1} --label typed` })).disposition,
      'handled',
    );
    assert.equal(await pi.leaf(), fileEntries(file).at(-1)!.id, 'pi wrote the label entry under a1 and stands on it');
    assert.equal(fileEntries(file).at(-1)!.targetId, ids.a1);
    assert.ok(
      notes().some((m) => m.includes('goto done')),
      notes().join('\n'),
    );
    await pi.send({ type: 'prompt', message: '/tree-bridge status' });
    const status = await pi.until(
      () => notes().find((m) => m.startsWith('pi-tree bridge: listening for this session')),
      'the status',
    );
    // (this pi's working folder lies in its agent dir: capture stays off there, and the status says why)
    assert.match(
      status,
      /; checkpoints are off in this folder: the working folder is inside pi's own folder/,
      'and whether checkpoints are taken',
    );
    await pi.send({ type: 'prompt', message: '/tree-bridge fork nonsense words' });
    await pi.until(() => notes().some((m) => m.includes('fork needs one user message id')), 'usage note');
    assert.equal(
      lb.requests.filter((r) => JSON.stringify(r.body).includes('tree-bridge')).length,
      0,
      'no bridge command ever reached the model',
    );
  });

  it('clone switches pi to a new file holding the path; fork starts before a user message', async () => {
    await client.request('goto', { targetId: ids.a2 });
    const clone = await client.request('clone', { entryId: ids.a2 });
    assert.equal(clone.cancelled, false);
    assert.ok(clone.sessionFile && clone.sessionFile !== file && existsSync(clone.sessionFile));
    assert.equal((await pi.send({ type: 'get_state' })).sessionFile, clone.sessionFile);
    const cloned = await Session.open(clone.sessionFile);
    assert.deepEqual(
      cloned.index
        .branch(cloned.leafId)
        .map((x) => x.id)
        .filter((id) => [ids.u1, ids.a1, ids.u2, ids.a2].includes(id)),
      [ids.u1, ids.a1, ids.u2, ids.a2],
    );
    assert.ok(events.some((e) => e.event === 'sessionSwitched' && e.sessionFile === clone.sessionFile));
    // The old bridge is gone, the clone has its own.
    const info = await waitForBridge(clone.sessionFile, pe.env, pi);
    const c2 = await BridgeClient.connect(info.record);
    try {
      const fork = await c2.request('fork', { entryId: ids.u2 });
      assert.equal(fork.editorText, 'second question');
      assert.ok(fork.sessionFile && fork.sessionFile !== clone.sessionFile);
      assert.equal((await pi.send({ type: 'get_state' })).sessionFile, fork.sessionFile);
      const forked = await Session.open(fork.sessionFile);
      // pi re-emits labels after the copied path (a1 is labelled), so the leaf may be that label entry.
      const path = forked.index.branch(forked.leafId).map((x) => x.id);
      assert.ok(path.includes(ids.a1) && !path.includes(ids.u2), path.join(' '));
      assert.ok(
        forked.index
          .branch(forked.leafId)
          .every((x) => x.id === ids.a1 || path.indexOf(x.id) < path.indexOf(ids.a1) || x.type === 'label'),
      );
      assert.equal(forked.header.parentSession, clone.sessionFile);
      await pi.prompt('in the fork');
      await assertPromptMatches(fork.sessionFile, lb.requests, 'in the fork', ids.a1);
    } finally {
      c2.close();
    }
  });
});
