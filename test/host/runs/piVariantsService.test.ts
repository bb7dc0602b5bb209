// The VariantsService over the variants core (runs/piVariantsService.ts) with a fake core: the check's
// timeout (the piTree.variants.checkTimeoutSeconds setting, read as ms) goes to the core with the check,
// and not without one.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import type { VariantsRequest, VariantsRun } from '../../../src/core/variants/index.js';
import { Session } from '../../../src/core/session/session.js';
import { createVariantsService } from '../../../src/host/runs/piVariantsService.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';

it("hands the check's timeout to the core with the check, and none without a check", async () => {
  const pi = join(tempDir('pi-tree-variants-bin-'), 'pi');
  writeFileSync(pi, '#!/bin/sh\nexit 0\n');
  chmodSync(pi, 0o755);
  const b = new SessionBuilder({ cwd: tempDir('pi-tree-variants-cwd-') });
  b.user('q');
  const a = b.assistant({ text: 'a' });
  const file = b.write(tempDir('pi-tree-variants-sessions-'));
  const session = await Session.open(file);
  const asked: VariantsRequest[] = [];
  const svc = createVariantsService({
    core: { runVariants: (req) => (asked.push(req), { done: Promise.resolve([]) } as unknown as VariantsRun) },
    piCommand: () => pi,
    agentDir: () => tempDir('pi-tree-variants-agent-'),
    checkTimeoutMs: () => 42_000,
  });
  await svc.start({ session, file, entryId: a, prompt: 'try', count: 2, check: 'npm test' });
  await svc.start({ session, file, entryId: a, prompt: 'try', count: 2 });
  assert.deepEqual(
    asked.map((r) => ({ check: r.check, checkTimeoutMs: r.checkTimeoutMs })),
    [{ check: 'npm test', checkTimeoutMs: 42_000 }, {}].map((x) => ({
      check: undefined,
      checkTimeoutMs: undefined,
      ...x,
    })),
  );
});
