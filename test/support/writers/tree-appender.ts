// Appends N entries through pi-tree's Session (each append reads what others appended first).
import { Session } from '../../../src/core/session/session.js';
import { nowIso } from '../../../src/core/format/ids.js';

async function main() {
  const [file, n] = [process.argv[2], Number(process.argv[3])];
  const s = await Session.open(file);
  for (let i = 0; i < n; i++) {
    await s.appendEntries((parentId, id) => [
      { type: 'custom', customType: 'pi-tree-writer', data: { i }, id: id(), parentId, timestamp: nowIso() },
    ]);
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
