// The end of a session file read as a session (src/core/tailSession.ts): the same leaf as the whole
// file, each entry under the same parent (or a root when its parent lies before the cut), and every
// child of a tail entry in the tail.
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { NotASessionError } from '../../../src/core/index/reader.js';
import { Session } from '../../../src/core/session/session.js';
import { openTail } from '../../../src/core/index/tailSession.js';
import { generateSession } from '../../support/generate.js';

const dir = mkdtempSync(join(tmpdir(), 'pi-tree-tail-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The tail agrees with the whole file on leaf, parents and children. */
async function assertAgrees(file: string, maxBytes: number): Promise<Session> {
  const full = await Session.open(file);
  const tail = (await openTail(file, maxBytes))!;
  assert.ok(tail, `a tail of ${maxBytes} bytes`);
  assert.equal(tail.leafId, full.leafId, 'the leaf of the whole file');
  assert.equal(tail.header.id, full.header.id);
  const inTail = new Set(tail.index.live().map((r) => r.id));
  assert.ok(inTail.size > 0 && inTail.size <= full.index.size);
  for (const r of tail.index.live()) {
    const whole = full.index.get(r.id)!;
    assert.ok(whole, `${r.id} is in the whole file`);
    const parent = full.index.treeParent(whole)?.id;
    const tailParent = tail.index.treeParent(r)?.id;
    if (parent !== undefined && inTail.has(parent)) assert.equal(tailParent, parent, `parent of ${r.id}`);
    else assert.equal(tailParent, undefined, `${r.id} is a root of the tail (its parent is before the cut)`);
    assert.deepEqual(
      tail.index
        .childrenOf(r.id)
        .map((c) => c.id)
        .sort(),
      full.index
        .childrenOf(r.id)
        .map((c) => c.id)
        .sort(),
      `children of ${r.id}`,
    );
  }
  return tail;
}

it('a branchy session: the tail has the leaf, the parents and every branch of its entries, at any cut', async () => {
  const g = generateSession({ seed: 31, entries: 3000, branchRate: 0.15 });
  const file = write('branchy.jsonl', g.text);
  const size = readFileSync(file).length;
  const whole = (await Session.open(file)).index.size;
  let last = 0;
  for (const max of [2_000, 40_000, 300_000, size]) {
    const tail = await assertAgrees(file, max);
    assert.ok(tail.index.size > last, `more entries for more bytes (${tail.index.size} at ${max})`);
    last = tail.index.size;
  }
  assert.equal(last, whole, 'the whole file when the tail covers it');
});

it('a cut on a line boundary keeps that line; a torn last line is ignored as in the whole read', async () => {
  const g = generateSession({ seed: 5, entries: 50 });
  const file = write('bounded.jsonl', g.text);
  const lines = g.text.split('\n').slice(0, -1);
  const lastThree = Buffer.byteLength(`${lines.slice(-3).join('\n')}\n`);
  assert.equal((await openTail(file, lastThree))!.index.size, 3);
  assert.equal((await openTail(file, lastThree - 1))!.index.size, 2);
  appendFileSync(file, '{"type":"message","id":"torn1234","parentId":');
  await assertAgrees(file, 4_000);
});

it('nothing to show: a last line longer than the tail, a header only, an older format', async () => {
  const g = generateSession({ seed: 6, entries: 5 });
  const big = {
    type: 'custom',
    customType: 'x',
    data: 'y'.repeat(20_000),
    id: 'big00001',
    parentId: g.leafId,
    timestamp: new Date().toISOString(),
  };
  const file = write('big-last.jsonl', `${g.text}${JSON.stringify(big)}\n`);
  assert.equal(await openTail(file, 10_000), undefined);
  assert.equal((await openTail(file, 30_000))!.leafId, 'big00001');
  assert.equal(await openTail(write('header-only.jsonl', `${JSON.stringify(g.header)}\n`)), undefined);
  // pi's author's real files are v1: their ids are made by migrating all of it
  for (const real of ['pi-mono-large-session.v1.jsonl', 'pi-mono-before-compaction.jsonl']) {
    const v1 = join(dir, real);
    copyFileSync(join(__dirname, '..', '..', 'fixtures', 'real', real), v1);
    assert.equal(await openTail(v1, 100_000), undefined, real);
  }
});

it('a header after lines pi passes over (blank, not JSON, null): the tail is read as the whole file is', async () => {
  const g = generateSession({ seed: 8, entries: 300 });
  for (const [name, prefix] of [
    ['blank', '\n \r\n'],
    ['not-json', '{"type":"session",\n'],
    ['null', 'null\n'],
  ]) {
    const tail = await assertAgrees(write(`prefixed-${name}.jsonl`, prefix + g.text), 20_000);
    assert.equal(tail.header.id, g.header.id, name);
  }
});

it('refuses what the whole read refuses: not a session, not a regular file', async () => {
  await assert.rejects(openTail(write('garbage.jsonl', 'hello\n{"type":"message"}\n')), NotASessionError);
  await assert.rejects(openTail(dir), /not a regular file|a directory/);
});
