// Ages a checkpoint store's objects for tests: a collect keeps objects younger than a minute (a snapshot
// of another pi may be using them, storeGc.ts), so a test that checks what a collect frees makes the
// objects as old as they would be a while after their session.
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/** Sets the time of every object file of the store `ms` back. */
export function backdate(gitDir: string, ms: number): void {
  const when = new Date(Date.now() - ms);
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else utimesSync(join(d, e.name), when, when);
    }
  };
  walk(join(gitDir, 'objects'));
}
