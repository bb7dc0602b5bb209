// A fork's checkpoints include those of the sessions it came from, followed through each file's header
// (parentSession) as pi finds the header: past blank lines and lines that do not parse. A session whose
// file starts with such a line passes its snapshots on to its forks, and to theirs.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionCheckpoints } from '../../../../src/core/checkpoints/store/manifests.js';
import { Session } from '../../../../src/core/session/session.js';
import { SimPi } from '../../../support/simPi.js';
import { tempDir } from '../../../support/tmp.js';

function dirs() {
  const root = tempDir('pi-cp-fork-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  return { cwd, agentDir, sessions };
}

/** A session with two captured turns; returns its file and the ids of the turns' tool calls. */
async function captured(d: ReturnType<typeof dirs>) {
  const sim = new SimPi(d.cwd, d.agentDir, { sessionDir: d.sessions });
  const t1 = await sim.turn('one', [{ name: 'write', args: { path: 'a.txt', content: '1\n' } }], () =>
    writeFileSync(join(d.cwd, 'a.txt'), '1\n'),
  );
  const t2 = await sim.turn('two', [{ name: 'write', args: { path: 'a.txt', content: '2\n' } }], () =>
    writeFileSync(join(d.cwd, 'a.txt'), '2\n'),
  );
  return { sim, calls: [t1.call, t2.call] };
}

/** A fork of `parentFile` as pi writes one (a new header naming it, then its entries), its text after `prefix`. */
function fork(parentFile: string, d: ReturnType<typeof dirs>, id: string, prefix = ''): string {
  const lines = readFileSync(parentFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'));
  const header = {
    type: 'session',
    version: 3,
    id,
    timestamp: '2026-01-05T11:00:00.000Z',
    cwd: d.cwd,
    parentSession: parentFile,
  };
  const file = join(d.sessions, `2026-01-05T11-00-00-000Z_${id}.jsonl`);
  writeFileSync(file, `${prefix}${[JSON.stringify(header), ...lines.slice(1)].join('\n')}\n`);
  return file;
}

const snapshotsOf = async (file: string, agentDir: string) =>
  SessionCheckpoints.load(await Session.open(file), agentDir).byEntry;

describe('SessionCheckpoints.load: the sessions a fork came from', () => {
  // What pi passes over before the header (session-manager.js: blank lines, lines JSON.parse rejects,
  // falsy values); test/interop/sessionHeader.test.ts checks pi finds the same headers.
  for (const [what, prefix] of [
    ['a blank line', '\n'],
    ['a blank line with "\\r"', ' \r\n'],
    ['a line that does not parse', '{"type":"session",\n'],
    ['null', 'null\n'],
  ] as const) {
    it(`the parent's file starts with ${what}: the fork has its parent's checkpoints`, async () => {
      const d = dirs();
      const { sim, calls } = await captured(d);
      writeFileSync(sim.file, prefix + readFileSync(sim.file, 'utf8'));
      const child = fork(sim.file, d, '019b8f3a-0000-7000-8000-00000000f001');
      const byEntry = await snapshotsOf(child, d.agentDir);
      for (const c of calls)
        assert.equal(byEntry.get(c)?.sessionId, sim.b.header.id, `the snapshot of ${c}, from the parent's manifest`);
    });
  }

  it("a fork's fork whose middle file starts with a blank line: the first session's checkpoints reach the last", async () => {
    const d = dirs();
    const { sim, calls } = await captured(d);
    const middle = fork(sim.file, d, '019b8f3a-0000-7000-8000-00000000f002', '\n');
    const last = fork(middle, d, '019b8f3a-0000-7000-8000-00000000f003');
    assert.equal((await Session.open(middle)).header.parentSession, sim.file, 'the middle file opens with its header');
    const byEntry = await snapshotsOf(last, d.agentDir);
    for (const c of calls) assert.equal(byEntry.get(c)?.sessionId, sim.b.header.id);
  });

  it('a parent whose first parsed line is no header is no session: its checkpoints are not taken', async () => {
    const d = dirs();
    const { sim, calls } = await captured(d);
    writeFileSync(sim.file, `{"type":"message"}\n${readFileSync(sim.file, 'utf8')}`);
    const byEntry = await snapshotsOf(fork(sim.file, d, '019b8f3a-0000-7000-8000-00000000f004'), d.agentDir);
    for (const c of calls) assert.equal(byEntry.get(c), undefined);
  });
});
