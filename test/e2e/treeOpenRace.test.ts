// A tree whose webview says it is ready before the host has opened its session (a big file on a busy
// extension host) still shows the tree. The host used to wait for the first snapshot inside the open,
// while the snapshot waited for the open: the panel stayed empty, with no error. The fixture opens the
// tree and holds the extension host's thread until the webview has loaded.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { sessionDirFor, sessionFileName } from '../../scripts/lib/demoSessions.js';
import { generateSession } from '../support/generate.js';
import { scenario } from './harness.js';

const STALL = join(__dirname, 'fixtures', 'host-stall');

describe('opening a big session', () => {
  scenario(
    'the tree comes when the webview is ready before the session is open',
    async (vs) => {
      await vs.openContainer();
      await vs.treeRows().filter({ hasText: 'Race session' }).first().waitFor();
      await vs.runCommand('pi-tree stall: Open Tree, Then Stall');
      const wv = vs.webview();
      // The webview has loaded and said it is ready; the host has not seen it yet (held by the fixture).
      await wv.locator('header.toolbar').waitFor();
      await vs.screenshot('webview-loaded-host-held');
      writeFileSync(join(vs.workspace, 'stall.go'), '');
      await wv.locator('svg.scene g.node').first().waitFor({ timeout: 120_000 });
      await wv.locator('footer.status').filter({ hasText: '20,0' }).waitFor();
      await vs.screenshot('shown');
    },
    {
      extraExtensions: [STALL],
      sessions: ({ agentDir, workspace }) => {
        const dir = sessionDirFor(agentDir, workspace);
        mkdirSync(dir, { recursive: true });
        // Big in bytes (long tool outputs): reading it takes the host a while.
        const g = generateSession({
          seed: 77,
          entries: 20_000,
          branchRate: 0.03,
          largeOutputRate: 0.25,
          cwd: workspace,
        });
        const last = g.entries[g.entries.length - 1].id as string;
        const name = {
          type: 'session_info',
          id: 'race0001',
          parentId: last,
          timestamp: new Date().toISOString(),
          name: 'Race session',
        };
        const file = join(dir, sessionFileName(g.header.timestamp as string, g.header.id as string));
        writeFileSync(file, `${g.text}${JSON.stringify(name)}\n`);
        const old = new Date(Date.now() - 3600_000);
        utimesSync(file, old, old);
        writeFileSync(join(workspace, 'stall.json'), JSON.stringify({ file }));
      },
    },
  );
});
