// The real pi 1.6.0 (devDependency), loaded lazily: its package is ESM-only.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

type Pi = any;
let pi: Promise<Pi> | undefined;

export function loadPi(): Promise<Pi> {
  pi ??= import('@earendil-works/pi-coding-agent');
  return pi;
}

/** Opens a COPY of `file` with pi's SessionManager (pi may rewrite files it opens). */
export async function piOpenCopy(file: string): Promise<{ sm: Pi; path: string }> {
  const { SessionManager } = await loadPi();
  const path = join(tempDir('pi-copy-'), 'copy.jsonl');
  copyFileSync(file, path);
  return { sm: SessionManager.open(path), path };
}

/** Opens `file` itself with pi (pi may append a newline or migrate it, as pi does). */
export async function piOpen(file: string): Promise<Pi> {
  const { SessionManager } = await loadPi();
  return SessionManager.open(file);
}
