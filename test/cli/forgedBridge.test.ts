// A discovery record planted by another process of the same user is not believed by CLI routing: the
// pid must be a pi of ours holding the record's socket (a socket, not a symlink to one), and the
// action's effect must show in pi's reply and then in the session file before "via pi PID" is said.
// A forged peer ends in one clear error, exit 1, nothing reported as done and nothing written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { writeTwoTurns } from '../piExtension/helpers.js';
import { forgedScene } from '../support/fakeBridge.js';

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += s.toString()), err: (s) => (err += s), env });
  return { code, out, err };
}

describe(
  'CLI routing does not trust a forged bridge',
  { skip: process.platform !== 'linux' ? 'the pid checks read /proc' : false },
  () => {
    const scene = forgedScene('pi-tree-forged-');
    const { elsewhere, env } = scene;
    let file: string;
    const ids: Record<string, string> = {};

    before(() => {
      const written = writeTwoTurns(scene.root, 'forged.jsonl');
      file = written.file;
      Object.assign(ids, written.ids);
    });

    const plant = (opts: { title?: string; listenIn?: string } = {}) => scene.plant(file, opts);

    /** Runs `argv`: exit 1, one line naming the failure, nothing on stdout, "via pi" never said, the file as it was. */
    async function refused(argv: string[], why: RegExp): Promise<void> {
      const before = readFileSync(file);
      const r = await run(argv, env);
      assert.equal(r.code, 1, `${argv[0]}: exit 1 (stderr: ${r.err})`);
      assert.equal(r.out, '', `${argv[0]}: nothing reported as done`);
      assert.doesNotMatch(r.err, /via pi/, argv[0]);
      assert.equal(r.err.split('\n').filter(Boolean).length, 1, `${argv[0]}: one line`);
      assert.match(r.err, why, argv[0]);
      assert.deepEqual(readFileSync(file), before, `${argv[0]}: nothing written`);
    }

    const all = () => [
      ['move', file, ids.a1],
      ['label', file, ids.u1, 'x'],
      ['name', file, 'renamed'],
      ['fork', file, ids.u2],
      ['clone', file, ids.a1],
      ['restore', file, ids.a1],
    ];

    it('a process that is not pi: refused before any action is sent to it', async () => {
      const fake = await plant();
      try {
        for (const argv of all()) await refused(argv, new RegExp(`pid ${fake.pid}.*is not a pi`));
        assert.deepEqual(
          fake.requests.filter((op) => op !== 'state'),
          [],
          'no action reached the forged bridge',
        );
      } finally {
        await fake.stop();
      }
    });

    it("a socket put in place as a symlink to another one (the record's place is not the listening socket): refused", async () => {
      const fake = await plant({ title: 'pi', listenIn: elsewhere });
      try {
        for (const argv of all()) await refused(argv, /not a socket|symlink|does not hold/);
        assert.deepEqual(
          fake.requests.filter((op) => op !== 'state'),
          [],
        );
      } finally {
        await fake.stop();
      }
    });

    it('a forger that looks like pi and answers "ok" without doing anything: its effect is looked for and not found', async () => {
      const fake = await plant({ title: 'pi' });
      try {
        await refused(
          ['move', file, ids.a1],
          new RegExp(`pi ${fake.pid} answered the move, but the session file does not show it`),
        );
        await refused(
          ['label', file, ids.u1, 'x'],
          new RegExp(`pi ${fake.pid} answered the label, but the session file does not show it`),
        );
        await refused(
          ['name', file, 'renamed'],
          new RegExp(`pi ${fake.pid} answered the name, but the session file does not show it`),
        );
      } finally {
        await fake.stop();
      }
    });
  },
);
