// A snapshot part packed as columns (src/packedNodes.ts) unpacks to the very nodes JSON would give
// back, in every odd case, and in fewer bytes than the array of objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packNodes, unpackNodes } from '../src/packedNodes.js';
import type { NodeView } from '../src/protocol.js';
import { generateSession } from './support/generate.js';
import { tempFile } from './support/tmp.js';
import { Session } from '../src/core/session.js';
import { projectAll } from '../src/host/projection/projection.js';

/** What the nodes were when they crossed as the JSON of the array (undefined fields gone, NaN null). */
const asJson = (nodes: NodeView[]) => JSON.parse(JSON.stringify(nodes)) as NodeView[];

describe('packed nodes', () => {
  it('odd nodes come back as JSON gives them', () => {
    const base = { type: 'message', kind: 'user' as const, text: 'x' };
    const nodes: NodeView[] = [
      { ...base, id: 'a', parentId: null, time: 1_793_523_600_000, role: 'user' },
      { ...base, id: 'b', parentId: 'a', time: 1_793_523_600_500, label: '', tools: [], files: ['src/a.ts', 'src/a.ts'], changed: ['src/a.ts'] },
      // a parent earlier in the part, one outside it, itself, and a repeated id
      { ...base, id: 'c', parentId: 'a', time: 1_793_523_599_000, model: 'm', tokens: 0, cost: 0, error: false, noText: true },
      { ...base, id: 'd', parentId: 'outside', time: Number.NaN, tokens: 12, cost: 0.0619, error: true, noText: false },
      { ...base, id: 'e', parentId: 'e', time: 1_793_523_601_000.5, role: undefined, label: undefined },
      { ...base, id: 'c', parentId: 'c', time: 1e300, text: 'ünïcode 😀 "quoted" \\ \u0000' },
      { ...base, id: 'f', parentId: 'c', time: -5, type: 'custom', kind: 'customEntry', label: 'label' },
      { ...base, id: 'g', parentId: 'f', time: Number.POSITIVE_INFINITY },
      { ...base, id: 'h', parentId: 'g', time: 7 },
    ];
    assert.deepStrictEqual(unpackNodes(packNodes(nodes)), asJson(nodes));
    assert.deepStrictEqual(unpackNodes(packNodes([])), []);
  });

  it("a generated session's projection: the same nodes, in about half the bytes", async () => {
    const g = generateSession({ seed: 3, entries: 6000, branchRate: 0.05, compactions: 2, labels: 5 });
    const s = await Session.open(tempFile(g.text));
    const nodes = await projectAll(s.index, s.index.live(), s);
    assert.ok(nodes.some((n) => n.files?.length) && nodes.some((n) => n.tokens) && nodes.some((n) => n.label), 'the nodes have files, tokens and labels');
    for (let from = 0; from < nodes.length; from += 1000) {
      const part = nodes.slice(from, from + 1000);
      assert.deepStrictEqual(unpackNodes(packNodes(part)), asJson(part));
    }
    const columns = packNodes(nodes).length;
    const objects = new TextEncoder().encode(JSON.stringify(nodes)).length;
    assert.ok(columns < objects * 0.65, `${columns} bytes as columns, ${objects} as objects`);
  });

  it('refuses bytes that are not its columns', () => {
    assert.throws(() => unpackNodes(new TextEncoder().encode('[{"id":"a"}]')), /not columns/);
  });
});
