// A variant as pi 1.6.0 runs it: the session pi-tree forks (header `cwd` = the variant's folder,
// `parentSession` = the source, the path up to the node with its ids, beside the source so its family
// finds it) opens in pi, whose tools run in the variant's folder; the bridge's capture there starts from
// the checkout; a call that would write into the user's folder (the conversation names its absolute
// paths) is blocked; and the variant's work is adopted into the user's folder. The user's folder and
// its .git stay as they were until the adopt.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SessionCheckpoints } from '../../src/core/checkpoints/store/manifests.js';
import { readHeader } from '../../src/core/index/sessionHeader.js';
import { attachPoint, familyOf } from '../../src/core/listing/family.js';
import { SessionInfoCache } from '../../src/core/listing/sessionInfo.js';
import { Session } from '../../src/core/session/session.js';
import { makeVariant, type VariantRecord } from '../../src/core/variants/index.js';
import { fileEntries } from '../piExtension/helpers.js';
import { startCodingPi, treeBytes, type CodingPi } from '../support/codingPi.js';
import { PiRpc, PI_REPLY_MS } from '../support/piRpc.js';
import { until } from '../../scripts/lib/until.js';
import { CLI } from '../support/variantProject.js';

type Rec = Record<string, any>;

describe('a variant run by pi 1.6.0', () => {
  let cp: CodingPi;
  let rec: VariantRecord;
  let nodeId: string;
  let userFiles: Map<string, string>;
  const work = (p: string) => join(cp.pe.workDir, p);

  before(async () => {
    cp = await startCodingPi({ files: { 'README.md': 'hello\n', 'src/app.ts': 'export const app = 1;\n' } });
    await cp.turn('write the reader', [
      { name: 'write', arguments: { path: 'src/reader.ts', content: 'export const read = () => 1;\n' } },
    ]);
    nodeId = (await cp.pi.leaf())!;
    await cp.stopPi();
    rec = await makeVariant({
      agentDir: cp.pe.agentDir,
      source: await Session.open(cp.file),
      entryId: nodeId,
      prompt: 'try it another way',
    });
    userFiles = treeBytes(cp.pe.workDir);
    // the variant's pi: its session, the bridge loaded (the runner's way)
    cp.pi = PiRpc.start(rec.sessionFile!, cp.pe);
    await cp.pi.ready();
  });
  after(() => cp?.stop());

  it('is a fork pi reads as one: cwd the variant’s folder, parentSession the source, the path up to the node, beside the source', async () => {
    const h = readHeader(rec.sessionFile!)!;
    assert.equal(h.cwd, rec.folder);
    assert.equal(h.parentSession, cp.file);
    assert.equal(h.id, rec.id);
    assert.equal(dirname(rec.sessionFile!), dirname(cp.file));
    const { entries, leafId } = await cp.pi.entries();
    assert.equal(leafId, nodeId, 'pi resumes the variant at the node');
    const sourcePath = (fileEntries(cp.file) as Rec[]).map((e) => e.id);
    assert.deepEqual(
      entries.map((e: Rec) => e.id),
      sourcePath.slice(0, sourcePath.indexOf(nodeId) + 1),
    );
    const state = await cp.pi.send({ type: 'get_state' });
    assert.equal(state.sessionFile, rec.sessionFile);
    const cache = new SessionInfoCache();
    const fam = await familyOf(cp.file, undefined, cache, [], undefined, { listsFolder: () => true });
    assert.deepEqual(
      fam.children.map((c) => c.path),
      [rec.sessionFile],
      'family links find it beside its source',
    );
    const [parent, child] = await Promise.all([Session.open(cp.file), Session.open(rec.sessionFile!)]);
    assert.equal(await attachPoint(parent.index, child.index), nodeId, 'a branch of the node');
  });

  it('runs its tools in the variant’s folder; a write into the user’s folder is blocked', async () => {
    await cp.turn(
      'try it another way',
      [
        { name: 'write', arguments: { path: 'src/reader.ts', content: 'export const read = () => 42;\n' } },
        { name: 'bash', arguments: { command: 'pwd > where.txt' } },
      ],
      [
        { name: 'write', arguments: { path: work('src/evil.ts'), content: 'into the user’s folder\n' } },
        { name: 'bash', arguments: { command: `echo x > ${work('evil.txt')}` } },
      ],
    );
    assert.equal(readFileSync(join(rec.folder, 'src', 'reader.ts'), 'utf8'), 'export const read = () => 42;\n');
    assert.equal(
      readFileSync(join(rec.folder, 'where.txt'), 'utf8').trim(),
      rec.folder,
      'bash ran in the variant’s folder',
    );
    assert.equal(existsSync(work('src/evil.ts')), false, 'the write into the user’s folder was blocked');
    assert.equal(existsSync(work('evil.txt')), false, 'and the command naming it');
    const results = (fileEntries(rec.sessionFile!) as Rec[]).filter(
      (e) => e.message?.role === 'toolResult' && e.message.isError,
    );
    assert.equal(results.length, 2);
    assert.match(JSON.stringify(results[0].message.content), /pi-tree: write of .* would write into the user's folder/);
    assert.deepEqual(treeBytes(cp.pe.workDir), userFiles, 'the user’s folder and its .git are as they were');
    // the bridge captured in the variant's folder, from the checkout on (its 'after' snapshot follows the turn)
    const variant = await Session.open(rec.sessionFile!);
    const cps = await until(
      () => {
        const c = SessionCheckpoints.load(variant, cp.pe.agentDir);
        return c.lines.some((l) => l.kind === 'after') && c;
      },
      PI_REPLY_MS,
      "the variant's 'after' snapshot",
    );
    assert.equal(cps.offReason(), undefined);
    const kinds = cps.lines.map((l) => l.kind);
    assert.deepEqual(kinds.slice(0, 2), ['baseline', 'baseline'], 'the checkout’s line, then pi’s baseline');
    assert.ok(kinds.includes('after'), kinds.join());
    const turnAfter = cps.lines.find((l) => l.kind === 'after');
    assert.deepEqual(turnAfter?.kind === 'after' && turnAfter.changed?.sort(), ['src/reader.ts', 'where.txt']);
  });

  it('is adopted into the user’s folder', async () => {
    await cp.stopPi();
    const r = spawnSync(process.execPath, [CLI, 'adopt', rec.sessionFile!, '--json'], {
      cwd: cp.pe.workDir,
      encoding: 'utf8',
      env: cp.pe.env,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(work('src/reader.ts'), 'utf8'), 'export const read = () => 42;\n');
    assert.equal(readFileSync(work('where.txt'), 'utf8').trim(), rec.folder);
    assert.deepEqual(readdirSync(work('src')).sort(), ['app.ts', 'reader.ts']);
  });
});
