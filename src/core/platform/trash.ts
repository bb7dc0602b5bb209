// Moving a file to the operating system's trash, so a deleted session can be restored. Linux follows
// the freedesktop.org Trash spec; macOS uses ~/.Trash. Elsewhere it refuses (the VS Code host deletes
// through `workspace.fs.delete(…, {useTrash: true})` instead).
import { copyFile, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, extname, join } from 'node:path';

export class TrashUnavailableError extends Error {
  override name = 'TrashUnavailableError';
}

export function trashDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'darwin') return join(homedir(), '.Trash');
  if (process.platform === 'win32')
    throw new TrashUnavailableError('No trash is available to pi-tree on Windows outside VS Code.');
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(dataHome, 'Trash');
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await unlink(from);
  }
}

/** Returns the path the file now has in the trash. */
export async function moveToTrash(file: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const root = trashDir(env);
  const files = process.platform === 'darwin' ? root : join(root, 'files');
  await mkdir(files, { recursive: true });
  const base = basename(file);
  const ext = extname(base);
  for (let i = 0; ; i++) {
    const name = i === 0 ? base : `${base.slice(0, base.length - ext.length)}.${i}${ext}`;
    const dest = join(files, name);
    if (process.platform !== 'darwin') {
      // The .trashinfo file is created exclusively first: it reserves the name (spec §"Contents").
      const info = join(root, 'info', `${name}.trashinfo`);
      await mkdir(join(root, 'info'), { recursive: true });
      let fh;
      try {
        fh = await open(info, 'wx');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
      try {
        const date = new Date().toISOString().slice(0, 19);
        await fh.writeFile(`[Trash Info]\nPath=${encodeURI(file)}\nDeletionDate=${date}\n`);
      } finally {
        await fh.close();
      }
      try {
        await moveFile(file, dest);
      } catch (e) {
        await unlink(info).catch(() => {});
        throw e;
      }
      return dest;
    }
    try {
      await lstat(dest); // not open(): a FIFO of that name would block
      continue;
    } catch {
      await moveFile(file, dest);
      return dest;
    }
  }
}
