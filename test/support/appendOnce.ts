// Appends one line of N bytes to FILE through JsonlStorage, in its own process (so a test can run it
// under a file-size limit: `ulimit -f`, whose writes then fail part-way with EFBIG).
// Usage: node --import tsx appendOnce.ts FILE N  → exit 0, or 1 with the error code on stderr
import { JsonlStorage } from '../../src/core/session/storage.js';

const [file, n] = process.argv.slice(2);
new JsonlStorage(file).append(`{"x":"${'y'.repeat(Number(n))}"}\n`).then(
  () => undefined,
  (e: NodeJS.ErrnoException) => {
    process.stderr.write(`${e.code ?? e.message}\n`);
    process.exitCode = 1;
  },
);
