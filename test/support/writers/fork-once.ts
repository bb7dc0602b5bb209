// Clones a session at an entry (a big write to a new file); used by crash tests, which stop it at a
// named write step (PI_TREE_STOP_AT, see stopAt.ts) and kill it there.
import { SessionRepository } from '../../../src/core/session/repository.js';
import { Session } from '../../../src/core/session/session.js';
import { installStopAt } from './stopAt.js';

async function main() {
  installStopAt();
  const s = await Session.open(process.argv[2]);
  await new SessionRepository().clone(s, process.argv[3]);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
