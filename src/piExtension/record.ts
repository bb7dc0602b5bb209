// The discovery record: a small JSON file (0600) in a per-user directory (0700) telling pi-tree which
// pi runs which session, where its socket is and which token it wants. Written atomically (temp file,
// then rename) so a reader never sees half a record.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { allowedEndpoints, MAX_SOCKET_PATH, recordDirOf } from '../core/piClient/paths.js';
import { ensurePrivateDir } from '../core/platform/privateDir.js';
import type { BridgeRecord } from '../core/piClient/protocol.js';

export interface Placement {
  dir: string;
  stem: string;
  recordFile: string;
  endpoint: string;
}

/** Picks the record's name and the socket's place: beside the record, or a short private dir when too long. */
export function place(env: NodeJS.ProcessEnv): Placement {
  const dir = recordDirOf(env);
  ensurePrivateDir(dir);
  const stem = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const candidates = allowedEndpoints(dir, stem, env);
  let endpoint: string | undefined;
  if (process.platform === 'win32') endpoint = candidates[0];
  else {
    for (const c of candidates) {
      if (Buffer.byteLength(c) > MAX_SOCKET_PATH) continue;
      try {
        ensurePrivateDir(join(c, '..'));
        endpoint = c;
        break;
      } catch {
        // not usable (another user's directory): try the next
      }
    }
  }
  if (!endpoint)
    throw new Error(`no usable place for the bridge socket (paths too long or not private): ${candidates.join(', ')}`);
  return { dir, stem, recordFile: join(dir, `${stem}.json`), endpoint };
}

export function writeRecord(p: Placement, rec: BridgeRecord): void {
  const tmp = join(p.dir, `.${p.stem}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(rec)}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, p.recordFile);
}

export function removeRecord(p: Placement): void {
  try {
    unlinkSync(p.recordFile);
  } catch {
    // already gone
  }
}
