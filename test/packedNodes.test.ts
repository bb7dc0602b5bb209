// A snapshot part packed as columns (src/packedNodes.ts) unpacks to the very nodes JSON would give
// back, in every odd case, and in fewer bytes than the array of objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packNodes, SharedValues, unpackNodes } from '../src/packedNodes.js';
import type { NodeView } from '../src/protocol.js';
import { generateSession } from './support/generate.js';
import { tempFile } from './support/tmp.js';
import { Session } from '../src/core/session/session.js';
import { projectAll } from '../src/host/projection/projection.js';

/** What the nodes were when they crossed as the JSON of the array (undefined fields gone, NaN null). */
const asJson = (nodes: NodeView[]) => JSON.parse(JSON.stringify(nodes)) as NodeView[];

describe('packed nodes', () => {
  it('odd nodes come back as JSON gives them', () => {
    const base = { type: 'message', kind: 'user' as const, text: 'x' };
    const nodes: NodeView[] = [
      { ...base, id: 'a', parentId: null, time: 1_793_523_600_000, role: 'user' },
      {
        ...base,
        id: 'b',
        parentId: 'a',
        time: 1_793_523_600_500,
        label: '',
        tools: [],
        files: ['src/a.ts', 'src/a.ts'],
        changed: ['src/a.ts'],
      },
      // a parent earlier in the part, one outside it, itself, and a repeated id
      {
        ...base,
        id: 'c',
        parentId: 'a',
        time: 1_793_523_599_000,
        model: 'm',
        tokens: 0,
        cost: 0,
        error: false,
        noText: true,
      },
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
    assert.ok(
      nodes.some((n) => n.files?.length) && nodes.some((n) => n.tokens) && nodes.some((n) => n.label),
      'the nodes have files, tokens and labels',
    );
    for (let from = 0; from < nodes.length; from += 1000) {
      const part = nodes.slice(from, from + 1000);
      assert.deepStrictEqual(unpackNodes(packNodes(part)), asJson(part));
    }
    const columns = packNodes(nodes).length;
    const objects = new TextEncoder().encode(JSON.stringify(nodes)).length;
    assert.ok(columns < objects * 0.65, `${columns} bytes as columns, ${objects} as objects`);
  });

  it('the parts of one snapshot share their lists and short texts, and still give back the very nodes', () => {
    const base = { type: 'message', kind: 'toolResult' as const, role: 'toolResult', time: 1_793_523_600_000 };
    const long = 'x'.repeat(200);
    const part = (from: number): NodeView[] =>
      [0, 1, 2].map((k) => ({
        ...base,
        id: `n${from + k}`,
        parentId: null,
        text: k === 2 ? long : '[read: README.md]',
        tools: ['read'],
        files: k ? ['README.md', 'a,b'] : ['README.md'],
      }));
    const shared = new SharedValues();
    const a = unpackNodes(packNodes(part(0)), shared);
    const b = unpackNodes(packNodes(part(3)), shared);
    assert.deepStrictEqual([...a, ...b], asJson([...part(0), ...part(3)]));
    // one list object for equal lists, across parts; different lists stay apart
    assert.equal(a[0].tools, b[2].tools);
    assert.equal(a[1].files, b[1].files);
    assert.notEqual(a[0].files, a[1].files);
    assert.deepStrictEqual(b[1].files, ['README.md', 'a,b']);
    // without a shared table, each part has its own
    assert.notEqual(unpackNodes(packNodes(part(0)))[0].tools, a[0].tools);
  });

  it('a short text is written once per part; a part of version 1 (every text a string) still unpacks', () => {
    const base = { type: 'message', kind: 'toolResult' as const, time: 1_793_523_600_000, parentId: null };
    const nodes: NodeView[] = [0, 1, 2].map((k) => ({ ...base, id: `n${k}`, text: '[read: README.md]' }));
    const bytes = new TextDecoder().decode(packNodes(nodes));
    assert.equal(bytes.split('[read: README.md]').length, 2, bytes);
    const v1 = {
      v: 1,
      s: ['message', 'toolResult'],
      id: ['a'],
      parent: [null],
      type: [0],
      kind: [1],
      role: [0],
      text: ['[read: README.md]'],
      time: [5],
      label: [0],
      tools: [0],
      files: [0],
      changed: [0],
      model: [0],
      tokens: [0],
      cost: [0],
      flags: [0],
    };
    assert.deepStrictEqual(unpackNodes(new TextEncoder().encode(JSON.stringify(v1))), [
      { ...base, id: 'a', text: '[read: README.md]', time: 5 },
    ]);
  });

  it('refuses bytes that are not its columns', () => {
    assert.throws(() => unpackNodes(new TextEncoder().encode('[{"id":"a"}]')), /not columns/);
  });
});
