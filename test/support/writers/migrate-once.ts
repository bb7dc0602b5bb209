// Opens an old-format session and changes it (which migrates it by an atomic rewrite); used by crash tests.
import { Session } from '../../../src/core/session.js';

async function main() {
  const s = await Session.open(process.argv[2]);
  await s.setName('migrated');
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
