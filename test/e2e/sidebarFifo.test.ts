// A FIFO named like a session in pi's folder (it would block a plain open() forever and, four at a
// time, stall every fs call of the extension host): the sidebar lists the real sessions, says that one
// file could not be listed, and the log names it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe } from 'node:test';
import { writeDemoSessions } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';

describe('sessions sidebar and non-regular files', () => {
  scenario(
    'a FIFO named *.jsonl is skipped with a message, the sessions are listed',
    async (vs) => {
      await vs.openContainer();
      const rows = vs.treeRows();
      await rows.filter({ hasText: 'Stream the JSONL reader' }).waitFor();
      await vs
        .view()
        .getByText(/1 file in the sessions folder could not be listed/)
        .waitFor();
      const log = await vs.waitForOutput('not listed:');
      assert.match(log, /stuck\.jsonl: .*(FIFO|pipe|not a regular file)/i);
      await vs.screenshot('fifo-skipped');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const demo = writeDemoSessions(agentDir, workspace);
        execFileSync('mkfifo', [join(demo.dir, 'stuck.jsonl')]);
        return demo;
      },
    },
  );
});
