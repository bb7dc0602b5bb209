// The summary service (host/summaries/summaryService.ts) against the vscode mock, with a real Session on a
// temp file and a real OpenAI-compatible model on loopback: a branch summary previewed and then committed
// writes the leaf record and the summary under the new leaf; one whose session moved on in between (another
// writer appended a turn) is refused with StaleSessionError and the file keeps every byte it had.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { Session } from '../../../src/core/session/session.js';
import { StaleSessionError } from '../../../src/core/summary/index.js';
import { createSummaryService, type SummaryService } from '../../../src/host/summaries/summaryService.js';
import { completionJson, useLoopback } from '../../support/loopbackOpenAI.js';
import { assistant, lines, sessionText, tempDir, user } from '../../support/tmp.js';
import { extensionContext, mock } from '../../support/vscode/api.js';

const lb = useLoopback(() => completionJson('The branch tried a second approach and left it.'));
const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };

describe('summary service: a branch summary committed after a preview', () => {
  let ctx: ReturnType<typeof extensionContext>;
  let service: SummaryService;
  let file: string;

  beforeEach(() => {
    mock.reset();
    mock.setSetting('piTree.summary.provider', 'openai-compatible');
    mock.setSetting('piTree.summary.endpoint', lb.url);
    mock.setSetting('piTree.summary.model', 'loopback-model');
    ctx = extensionContext();
    const withSecrets = { ...ctx, secrets: { get: async () => undefined } } as unknown as vscode.ExtensionContext;
    const none = tempDir();
    service = createSummaryService(withSecrets, {
      bridgeFile: join(none, 'pi-bridge.js'),
      piCommand: () => join(none, 'no-pi'),
      discoveryDirs: [join(none, 'records')],
    });
    file = join(tempDir(), 'session.jsonl');
    const text = sessionText([
      user('u1', null, 'Make a plan'),
      assistant('a1', 'u1', 'Here is a plan'),
      user('u2', 'a1', 'Try the second approach'),
      assistant('a2', 'u2', 'Tried it'),
    ]);
    appendFileSync(file, text);
  });
  afterEach(() => ctx.dispose());

  it('writes the summary under the new leaf when the session stayed where it was', async () => {
    const session = await Session.open(file);
    const p = await service.previewBranch(session, 'a1', 'a1', undefined, token as vscode.CancellationToken);
    assert.match(p.summary, /second approach/);
    const r = await service.commitBranch(session, 'a1', 'a1', 'Edited: the second approach was left.', p.previewId);
    const written = lines(file).slice(5);
    assert.deepEqual(
      written.map((e) => [e.type, e.parentId]),
      [
        ['leaf', 'a1'],
        ['branch_summary', 'a1'],
      ],
      'the leaf record, then the summary under the new leaf',
    );
    assert.equal(written[1].summary, 'Edited: the second approach was left.');
    assert.equal(written[1].fromId, 'a2');
    assert.equal(r.leafId, written[1].id);
  });

  it('refuses when another writer moved the session on after the preview, and writes nothing', async () => {
    const session = await Session.open(file);
    const p = await service.previewBranch(session, 'a1', 'a1', undefined, token as vscode.CancellationToken);
    // pi (another writer) goes on with the session: a new turn under the old leaf.
    appendFileSync(
      file,
      sessionText([user('u3', 'a2', 'And then?')])
        .split('\n')
        .slice(1)
        .join('\n'),
    );
    const before = readFileSync(file);
    await assert.rejects(
      service.commitBranch(session, 'a1', 'a1', p.summary, p.previewId),
      (e: unknown) => e instanceof StaleSessionError && /leaf is now u3/.test(e.message),
    );
    assert.deepEqual(readFileSync(file), before, 'the file keeps every byte');
    // The preview is spent: committing it again says so rather than writing.
    await assert.rejects(service.commitBranch(session, 'a1', 'a1', p.summary, p.previewId), /expired/);
    assert.deepEqual(readFileSync(file), before);
  });
});
