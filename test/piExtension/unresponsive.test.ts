// A pi stopped with Ctrl+Z (SIGSTOP to its process) keeps its leaf in memory and goes on from it after
// SIGCONT: it is a pi that does not answer, never "no pi". pi-tree refuses to write its file behind it
// (unless --file-only), and probing it never costs it its discovery record.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { checkLiveness, findBridge, scanBridges, readRecords } from '../../src/core/piClient/discovery.js';
import type { Loopback } from '../support/loopbackOpenAI.js';
import type { PiEnv, PiRpc } from '../support/piRpc.js';
import { fillAcceptQueue, waitForBridge, whileStopped, startTwoTurnPi } from './helpers.js';

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s.toString()), err: (s) => (err += s), env });
  return { code, out, err };
}

describe(
  'a stopped pi (Ctrl+Z) is unresponsive, not absent',
  { skip: process.platform !== 'linux' ? 'stops pi and reads /proc' : false },
  () => {
    let lb: Loopback;
    let pe: PiEnv;
    let pi: PiRpc;
    let file: string;
    const ids: Record<string, string> = {};

    before(async () => {
      const started = await startTwoTurnPi('stopped.jsonl');
      ({ lb, pe, pi, file } = started);
      Object.assign(ids, started.ids);
    });

    after(async () => {
      if (pi && pi.child.exitCode === null) process.kill(pi.pid, 'SIGCONT');
      await pi?.stop();
      await lb?.close();
    });

    it('move, label, name, fork, clone, summarize, compact and restore refuse with one line naming the pid; nothing is written; after SIGCONT the move goes through pi', async () => {
      const size = readFileSync(file).length;
      const requests = lb.requests.length;
      const leaf = await pi.leaf();
      await whileStopped(pi.pid, async () => {
        for (const argv of [
          ['move', file, ids.a1],
          ['label', file, ids.u1, 'x'],
          ['name', file, 'renamed'],
          ['fork', file, ids.u2],
          ['clone', file, ids.a1],
          ['summarize', file, ids.a1, '--endpoint', lb.url, '--model', 'm'],
          ['compact', file, '--endpoint', lb.url, '--model', 'm'],
          ['restore', file, ids.a1],
        ]) {
          const r = await run(argv, pe.env);
          assert.equal(r.code, 1, `${argv[0]} exits 1 (stderr: ${r.err})`);
          assert.equal(r.out, '', argv[0]);
          assert.equal(r.err.split('\n').filter(Boolean).length, 1, `${argv[0]}: one line`);
          assert.match(
            r.err,
            new RegExp(`pi ${pi.pid} runs this session but does not answer.*\\(fg\\) or (add --file-only|quit it)`),
            argv[0],
          );
        }
        assert.equal(readFileSync(file).length, size, 'nothing was written behind the stopped pi');
        assert.equal(lb.requests.length, requests, 'no model call was made');
      });
      assert.equal(await pi.leaf(), leaf, 'pi goes on from where it was');
      const m = await run(['move', file, ids.a1], pe.env);
      assert.equal(m.code, 0, m.err);
      assert.equal(m.err, `via pi ${pi.pid}\n`);
      assert.equal(await pi.leaf(), ids.a1, 'the move is not lost: pi itself made it');
    });

    it('--file-only still writes the file while pi is stopped (the user asked for it)', async () => {
      await whileStopped(pi.pid, async () => {
        const r = await run(['label', file, ids.a2, 'behind', '--file-only'], pe.env);
        assert.equal(r.code, 0, r.err);
        assert.doesNotMatch(r.err, /via pi/);
      });
    });

    it('probes that fill the stopped pi’s accept queue never remove its record: EAGAIN is unresponsive, and pi is found again after SIGCONT', async () => {
      const info = await waitForBridge(file, pe.env, pi);
      await whileStopped(pi.pid, async () => {
        const filled = await fillAcceptQueue(info.record.endpoint);
        assert.equal(filled.code, 'EAGAIN', `the queue took ${filled.queued} connections`);
        const [found] = readRecords({ env: pe.env }).filter((f) => f.stem === info.stem);
        assert.ok(found, 'the record is there');
        const l = await checkLiveness(found);
        assert.equal(l.status, 'unresponsive', `liveness said ${JSON.stringify(l)}`);
        assert.deepEqual((await scanBridges({ env: pe.env })).live, [], 'not live while stopped');
        const r = await findBridge(file, { env: pe.env }).then(
          (v) => v,
          (e: unknown) => e,
        );
        assert.equal(
          (r as { code?: string } | undefined)?.code,
          'unresponsive',
          'findBridge says so instead of "no pi"',
        );
        assert.ok(existsSync(info.recordFile), 'the record stays');
        assert.ok(existsSync(info.record.endpoint), 'the socket stays');
      });
      const again = await waitForBridge(file, pe.env, pi);
      assert.equal(again.stem, info.stem, 'the same bridge answers after SIGCONT');
    });
  },
);
