// A process that runs one variant's check (runCheck) in the folder given and waits: a test kills it
// with SIGKILL mid-check to see that the check does not outlive it.
import { runCheck } from '../../src/core/variants/variantCheck.js';

const [cwd, command] = process.argv.slice(2);
void runCheck({ command, cwd }).then((c) => process.stdout.write(`${JSON.stringify(c)}\n`));
