// For crash tests: reports every write step on stdout ("step <name>") and, at the step named by
// PI_TREE_STOP_AT, says "stopped <name>" and blocks this process (synchronously, so nothing else runs)
// until the test kills it. The test then looks at the disk exactly as that step left it.
import { onWriteStep } from '../../../src/core/session/writeSteps.js';
import { writeSync } from 'node:fs';

export function installStopAt(): void {
  const stopAt = process.env.PI_TREE_STOP_AT;
  onWriteStep((step) => {
    writeSync(1, `step ${step}\n`);
    if (step !== stopAt) return;
    writeSync(1, `stopped ${step}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
  });
}
