// Starts a headless pi on a private copy of a session (withHeadlessPi) and, once pi runs there, says
// "stopped headless <pi's pid> <the private folder>" and blocks until the test kills it: a crash test
// then finds what a kill -9 during a headless summary leaves. Args: FILE BIN_DIR (with a `pi`) BRIDGE.
import { writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { withHeadlessPi } from '../../../src/core/piClient/headless.js';
import { findPi } from '../../../src/core/platform/piProgram.js';
import { PI_START_MS } from '../piRpc.js';

async function main() {
  const [file, bin, bridgeFile] = process.argv.slice(2);
  const pi = await findPi('pi', { env: { PATH: `${bin}:/usr/bin:/bin` } });
  await withHeadlessPi(file, { pi, bridgeFile, startTimeoutMs: PI_START_MS }, async (h) => {
    writeSync(1, `stopped headless ${h.pid} ${dirname(h.copy)}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
  });
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
