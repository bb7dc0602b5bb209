// Runs one headless turn (runTurn) with a prompt the loopback model holds mid-answer and, once pi is
// streaming it, says "stopped turn <pi's pid>" and blocks until the test kills it: what a kill -9 of
// pi-tree during a turn leaves (pi's stdin closes; pi aborts and exits). Args: FILE CWD PROMPT PI_JSON.
import { writeSync } from 'node:fs';
import { runTurn } from '../../../src/core/runs/runTurn.js';
import { PI_START_MS } from '../piRpc.js';

async function main() {
  const [file, cwd, prompt, piJson] = process.argv.slice(2);
  let pid = 0;
  await runTurn({
    pi: JSON.parse(piJson),
    sessionFile: file,
    cwd,
    prompt,
    startTimeoutMs: PI_START_MS,
    onEvent: (e) => {
      if (e.kind === 'started') pid = e.pid;
      if (e.kind === 'text') {
        writeSync(1, `stopped turn ${pid}\n`);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
      }
    },
  });
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
