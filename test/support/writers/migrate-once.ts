// Opens an old-format session and changes it (which migrates it by an atomic rewrite); used by crash
// tests, which stop it at a named write step (PI_TREE_STOP_AT, see stopAt.ts) and kill it there.
import { Session } from '../../../src/core/session/session.js';
import { installStopAt } from './stopAt.js';

async function main() {
  installStopAt();
  const s = await Session.open(process.argv[2]);
  await s.setName('migrated');
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
