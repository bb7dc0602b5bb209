// "Continue in pi" in a real VS Code: pi starts in a terminal with the bridge (`-e`) and the session
// path as its own argument (no shell parses it), even for a file name built to break out of shell quoting, and the pi
// planted in the session's folder does not run; from the sidebar without a tree open, pi starts in the session's cwd as
// well. Without pi, continuing from an entry leaves the session as
// it was (the leaf used to move first).
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe } from 'node:test';
import { repoRoot } from '../../scripts/lib/codeServer.js';
import { SessionBuilder } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import { openTree, selectByFind, selectedEntry, until } from './uxHelpers.js';

const HOSTILE = `2026-11-20T09-00-00-000Z_a\\'; touch pwned #$(touch pwned2)\`touch pwned3\`.jsonl`;

describe('continue in pi', () => {
  let file = '';
  let fakeBin = '';
  let projectDir = '';
  scenario(
    'continue in pi passes the hostile session path as one argument',
    async (vs) => {
      await openTree(vs, 'Quoting is hard');
      await vs.runCommand('pi Tree: Continue in pi');
      const out = join(fakeBin, 'argv.txt');
      const argv = await vs.pollFile(out, (t) => (t.endsWith('\0END\0') ? t.split('\0').slice(0, -2) : undefined));
      const [parent, cwd, ...args] = argv;
      assert.doesNotMatch(
        parent,
        /^(ba|da|z|fi|k|c|tc)?sh$|^pwsh$|^cmd/,
        `pi was started directly, not by a shell (${parent})`,
      );
      const [e, bridge, ...rest] = args;
      assert.equal(e, '-e', 'pi loads the bridge for this run');
      assert.equal(
        realpathSync(bridge),
        realpathSync(join(repoRoot, 'dist', 'pi-bridge.js')),
        "the bridge is the extension's own bundle",
      );
      assert.deepEqual(rest, ['--session', file], 'pi got the path as one argument, untouched');
      assert.equal(cwd, projectDir, "the terminal starts in the session's cwd");
      for (const dir of [projectDir, dirname(file), vs.workspace]) {
        assert.deepEqual(
          readdirSync(dir).filter((f) => f.startsWith('pwned')),
          [],
          `nothing ran in ${dir}`,
        );
      }
      assert.equal(
        existsSync(join(dirname(file), 'planted-ran')),
        false,
        "the pi planted in the session's folder did not run",
      );
      await vs.screenshot('continued');

      // With no tree holding the session, from the sidebar row: the cwd comes from the listing's header.
      await vs.runCommand('View: Close All Editors');
      rmSync(out);
      const row = vs.treeRows().filter({ hasText: 'Quoting is hard' });
      await row.hover();
      await row.locator('.action-label[aria-label="Continue in pi"]').click();
      const again = await vs.pollFile(out, (t) => (t.endsWith('\0END\0') ? t.split('\0').slice(0, -2) : undefined));
      assert.equal(again[1], projectDir, "from the sidebar too, the terminal starts in the session's cwd");
      assert.deepEqual(again.slice(-2), ['--session', file]);
    },
    {
      sessions: ({ agentDir, workspace }) => {
        projectDir = workspace;
        const b = new SessionBuilder({ cwd: workspace, seed: 'e2e-quote', start: '2026-11-20T09:00:00.000Z' });
        b.user('Quoting is hard');
        b.assistant('Arguments, not command lines.');
        const written = b.write(agentDir);
        file = join(dirname(written), HOSTILE);
        renameSync(written, file);
        // a pi planted beside the session (where a shell or cmd.exe might look first): must never run
        const planted = join(dirname(file), 'pi');
        writeFileSync(planted, `#!/bin/sh\ntouch "${join(dirname(file), 'planted-ran')}"\n`);
        chmodSync(planted, 0o755);
        fakeBin = join(agentDir, '..', 'fake-bin');
        mkdirSync(fakeBin, { recursive: true });
        // the real "pi" of this test: records its parent's name, its working folder and arguments, NUL-separated
        writeFileSync(
          join(fakeBin, 'pi'),
          `#!/bin/sh\n{ tr -d '\\n' < /proc/$PPID/comm; printf '\\0'; pwd | tr -d '\\n'; printf '\\0'; for a in "$@"; do printf '%s\\0' "$a"; done; printf 'END\\0'; } > "${join(fakeBin, 'argv.txt')}"\n`,
        );
        chmodSync(join(fakeBin, 'pi'), 0o755);
      },
      // code-server gives the extension host the login shell's PATH, so pi is named by the setting here;
      // the PATH search (relative entries, the session's folder) is covered by test/core/piProgram.test.ts
      settings: () => ({ 'piTree.piCommand': join(fakeBin, 'pi') }),
    },
  );

  let plain = '';
  let ids: Record<string, string> = {};
  scenario(
    'without pi, continuing from an entry says so and writes nothing (the leaf stays)',
    async (vs) => {
      const before = readFileSync(plain);
      const wv = await openTree(vs, 'Read the config');
      // (the answer sits inside a segment of the default filter: the find box splits it out and selects it)
      await selectByFind(wv, 'settings.json', ids.answer);
      await until(async () => ((await selectedEntry(wv)) === ids.answer ? true : undefined));
      await wv.locator('.details [data-action="continue"]').click();
      await vs.notifications().filter({ hasText: 'pi is not installed' }).first().waitFor();
      assert.ok(readFileSync(plain).equals(before), 'the session file is unchanged: the leaf did not move');
      await vs.screenshot('no-pi');
    },
    {
      sessions: ({ agentDir, workspace }) => {
        const b = new SessionBuilder({ cwd: workspace, seed: 'e2e-no-pi', start: '2026-11-20T09:00:00.000Z' });
        b.user('Read the config');
        const answer = b.assistant('It is in settings.json.');
        b.user('Now change the port');
        b.assistant('Done: port 8080.');
        plain = b.write(agentDir);
        ids = { answer };
        fakeBin = join(agentDir, '..', 'fake-bin');
      },
      settings: () => ({ 'piTree.piCommand': join(fakeBin, 'no-such-pi') }),
    },
  );
});
