// Token estimates, the conversation a summarizing model reads, and branch-summary / compaction plans on
// tool calls nested 10,000 and 200,000 levels deep. pi 1.6.0 measures and writes tool-call arguments with
// JSON.stringify, which throws there: where pi succeeds the results are pi's, where it throws they are
// what JSON.stringify would give (the estimate) or cut with a marker (the conversation).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import {
  estimateTokens,
  planBranchSummary,
  planCompaction,
  previewBranchSummary,
  previewCompaction,
  serializeConversation,
} from '../../../src/core/summary/index.js';
import type { AgentMessage } from '../../../src/core/format/types.js';
import { deepArray, deepObject, deepSession } from '../../support/deepSession.js';
import { pi } from '../../support/piCorpora.js';
import { tempFile } from '../../support/tmp.js';

const call = (depth: number): AgentMessage =>
  ({
    role: 'assistant',
    content: [
      { type: 'text', text: 'looking' },
      { type: 'toolCall', id: 'c1', name: 'lookup', arguments: JSON.parse(`{"query":${deepObject(depth)}}`) },
    ],
    timestamp: 1,
  }) as AgentMessage;

describe('summaries on deeply nested tool calls', () => {
  it('estimateTokens: pi’s where pi succeeds, and JSON.stringify’s length where it throws', async () => {
    const { api } = await pi();
    const shallow = call(1000);
    assert.equal(estimateTokens(shallow), api.estimateTokens(shallow));
    for (const depth of [10_000, 200_000]) {
      const m = call(depth);
      assert.throws(() => api.estimateTokens(m), RangeError, 'pi itself overflows here');
      const chars = 'looking'.length + 'lookup'.length + `{"query":${deepObject(depth)}}`.length;
      assert.equal(estimateTokens(m), Math.ceil(chars / 4));
      const system = {
        role: 'system',
        content: 'be brief',
        toolsAdded: JSON.parse(deepArray(depth)),
        timestamp: 1,
      } as AgentMessage;
      assert.equal(estimateTokens(system), Math.ceil(('be brief'.length + 2 * depth) / 4));
    }
  });

  it('serializeConversation: pi’s where pi succeeds; past the stack the argument is cut with a marker', async () => {
    const { api } = await pi();
    const shallow = [call(1000)];
    assert.equal(serializeConversation(shallow), api.serializeConversation(shallow));
    for (const depth of [10_000, 200_000]) {
      const ms = [call(depth)];
      assert.throws(() => api.serializeConversation(ms), RangeError, 'pi itself overflows here');
      const text = serializeConversation(ms);
      assert.ok(text.startsWith(`[Assistant]: looking\n\n[Assistant tool calls]: lookup(query=${'{"a":'.repeat(200)}`));
      assert.match(text, /more levels nested too deeply to show/);
      // a text block whose text is nested, not text: "[object]", as for any text that cannot be a string
      const odd = [
        { role: 'user', content: [{ type: 'text', text: JSON.parse(deepArray(depth)) }], timestamp: 1 } as AgentMessage,
      ];
      assert.equal(serializeConversation(odd), '[User]: [object]');
    }
  });

  for (const depth of [10_000, 200_000]) {
    it(`branch summary and compaction plans of a session nested ${depth.toLocaleString('en-US')} levels deep`, async () => {
      const { text, ids } = deepSession(depth);
      const s = await Session.open(tempFile(text));
      const preview = previewBranchSummary(await planBranchSummary(s, ids.u1), { contextWindow: 2_000_000 }); // (room for the 300,000-token call)
      assert.ok(preview.entryIds.includes(ids.a1));
      assert.match(preview.conversation, /\[Assistant tool calls\]: lookup\(query=\{"a":\{"a":/);
      assert.match(preview.conversation, /more levels nested too deeply to show/);
      const plan = await planCompaction(s, { keepRecentTokens: 1 });
      assert.ok(plan.preparation, plan.reason);
      const c = previewCompaction(plan.preparation);
      assert.ok(c.summarizedTokens > (6 * depth) / 4, `${c.summarizedTokens} tokens summarized`);
    });
  }
});
