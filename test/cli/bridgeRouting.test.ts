// `pi-tree move|label|name|fork|clone` go through the pi running the session (with its bridge), and
// write the file themselves with --file-only or when no pi runs it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { Session } from '../../src/core/session/session.js';
import { fileEntries, startTwoTurnPi } from '../piExtension/helpers.js';
import type { Loopback } from '../support/loopbackOpenAI.js';
import type { PiEnv, PiRpc } from '../support/piRpc.js';

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s.toString()), err: (s) => (err += s), env });
  return { code, out, err };
}

describe('CLI routing through a running pi', () => {
  let lb: Loopback;
  let pe: PiEnv;
  let pi: PiRpc;
  let file: string;
  const ids: Record<string, string> = {};

  before(async () => {
    const started = await startTwoTurnPi('cli.jsonl');
    ({ lb, pe, pi, file } = started);
    Object.assign(ids, started.ids);
  });

  after(async () => {
    await pi?.stop();
    await lb?.close();
  });

  it('move, label and name go through pi and say so', async () => {
    const m = await run(['move', file, ids.a1], pe.env);
    assert.equal(m.code, 0, m.err);
    assert.equal(m.err, `via pi ${pi.pid}\n`);
    assert.equal(JSON.parse(m.out).leafId, ids.a1);
    assert.equal(await pi.leaf(), ids.a1);

    const l = await run(['label', file, ids.u1, 'start'], pe.env);
    assert.equal(l.code, 0, l.err);
    assert.match(l.err, /via pi/);
    assert.equal((await Session.open(file)).index.labels.get(ids.u1)?.label, 'start');
    assert.equal(await pi.leaf(), l.out.trim(), 'pi itself appended the label (its leaf is the label entry)');

    const n = await run(['name', file, 'Named via pi'], pe.env);
    assert.equal(n.code, 0, n.err);
    assert.equal((await pi.send({ type: 'get_state' })).sessionName, 'Named via pi');

    const root = await run(['move', file, 'root'], pe.env);
    assert.equal(root.code, 1);
    assert.match(root.err, /--file-only/);
  });

  it('--file-only writes the file and leaves the running pi where it is', async () => {
    const before = await pi.leaf();
    const r = await run(['move', file, ids.a2, '--file-only'], pe.env);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /via pi/);
    assert.equal(await pi.leaf(), before);
    assert.equal(fileEntries(file).at(-1)!.type, 'leaf');
  });

  it('what pi cannot do is refused, never written behind its back: --exact, summarize, compact; a bad option is a usage error', async () => {
    const size = readFileSync(file).length;
    const requestsBefore = lb.requests.length;
    const exact = await run(['move', file, ids.u2, '--exact'], pe.env);
    assert.equal(exact.code, 1);
    assert.match(exact.err, new RegExp(`pi ${pi.pid} runs this session.*add --file-only`));
    const bad = await run(['move', file, ids.a1, '--bogus'], pe.env);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /usage: pi-tree move FILE/);
    for (const argv of [
      ['summarize', file, ids.a1, '--endpoint', lb.url, '--model', 'm'],
      ['compact', file, '--endpoint', lb.url, '--model', 'm'],
    ]) {
      const r = await run(argv, pe.env);
      assert.equal(r.code, 1, argv[0]);
      assert.match(r.err, /runs this session \(with the pi-tree bridge\).*--file-only/, argv[0]);
    }
    assert.equal(readFileSync(file).length, size, 'nothing was written');
    assert.equal(lb.requests.length, requestsBefore, 'no model call was made');
  });

  it('clone goes through pi, which switches to the new session', async () => {
    const r = await run(['clone', file, ids.a2], pe.env);
    assert.equal(r.code, 0, r.err);
    const newFile = r.out.trim();
    assert.notEqual(newFile, file);
    assert.equal((await pi.send({ type: 'get_state' })).sessionFile, newFile);
  });

  it('without a running pi the commands write the file as before', async () => {
    await pi.stop();
    const r = await run(['label', file, ids.a2, 'offline'], pe.env);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    assert.equal((await Session.open(file)).index.labels.get(ids.a2)?.label, 'offline');
  });
});
