// Clones a session at an entry (a big write to a new file); used by crash tests.
import { SessionRepository } from '../../../src/core/repository.js';
import { Session } from '../../../src/core/session.js';

async function main() {
  const s = await Session.open(process.argv[2]);
  for (;;) await new SessionRepository().clone(s, process.argv[3]);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
