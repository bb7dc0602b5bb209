// Dependency folders (node_modules, .venv…) in a variant's folder, so that a check (`npm test`) runs
// there. Checkpoints never hold them; they come from the user's folder as it is now, beside every
// folder of the code that has one. How (the `variants.dependencies` setting, docs/user-guide.md):
// - copy (default): each file cloned where the file system can (copy-on-write: btrfs, XFS, APFS; no
//   bytes copied, no room taken), else copied. Either way the variant's files are its own: a write there
//   never reaches the user's. Never a hard link (a write through one changes the user's file: the same
//   inode; a chmod too) nor a link to the user's folder (a write through it lands there);
// - clone: copy-on-write only; where the file system cannot, no dependency folders (named);
// - none: no dependency folders;
// - command: the `installCommand` the user names (an argument list, no shell) runs in the variant's
//   folder after the code is there (`npm ci`, `uv sync`).
// Links are copied as links; one that would lead out of the variant's folder is left out and named.
// The user's files are only read (opened read-only, links never followed).
import { spawn } from 'node:child_process';
import {
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NoRoomError, settingsFile } from '../checkpoints/index.js';
import { linkLeadsOut } from '../platform/folderLinks.js';

export type DepsMode = 'copy' | 'clone' | 'none' | 'command';

export interface VariantSettings {
  dependencies: DepsMode;
  /** Folder names taken as dependency folders, beside any folder of the code. */
  dependencyFolders: string[];
  /** For `command`: the program and its arguments, run in the variant's folder. */
  installCommand: string[];
}

export const DEFAULT_VARIANT_SETTINGS: VariantSettings = {
  dependencies: 'copy',
  dependencyFolders: ['node_modules', '.venv', 'venv'],
  installCommand: [],
};

/** The `variants` part of pi-tree's settings.json, defaults for anything missing or malformed. */
export function readVariantSettings(agentDir: string): VariantSettings {
  let raw: Record<string, unknown> = {};
  try {
    const v = JSON.parse(readFileSync(settingsFile(agentDir), 'utf8').replace(/^\uFEFF/, '')) as { variants?: unknown };
    if (v && typeof v.variants === 'object' && v.variants) raw = v.variants as Record<string, unknown>;
  } catch {
    // none yet, or unreadable: defaults
  }
  const strs = (x: unknown) =>
    Array.isArray(x) && x.every((s) => typeof s === 'string' && s.length > 0) ? (x as string[]) : undefined;
  const names = strs(raw.dependencyFolders)?.filter((n) => !/[\\/]/.test(n) && n !== '.' && n !== '..' && n !== '.git');
  const mode = raw.dependencies;
  return {
    dependencies:
      mode === 'copy' || mode === 'clone' || mode === 'none' || mode === 'command'
        ? mode
        : DEFAULT_VARIANT_SETTINGS.dependencies,
    dependencyFolders: names ?? DEFAULT_VARIANT_SETTINGS.dependencyFolders,
    installCommand: strs(raw.installCommand) ?? [],
  };
}

export interface DepsResult {
  mode: DepsMode;
  /** cloned: copy-on-write; copied: bytes copied; none: nothing brought. */
  how: 'cloned' | 'copied' | 'none' | 'command';
  /** The folders brought (relative to the variant's folder). */
  folders: { path: string; files: number; bytes: number }[];
  /** Links left out (they would lead out of the variant's folder), and files that are not regular. */
  leftOut: { path: string; why: string }[];
  /** What went wrong with an install command, or why nothing was brought. */
  note?: string;
  ms: number;
}

export interface DepsOptions {
  settings: VariantSettings;
  /** The code's folders (CheckoutResult.folders). */
  folders: readonly string[];
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** The longest an install command may take (default 15 minutes). */
  timeoutMs?: number;
  freeBytes?: (dir: string) => number | undefined;
  /** Tests stop a copy at a file with this. */
  onFile?: (rel: string) => void;
}

/** Copies the user's dependency folders into the variant's folder, as the settings say. */
export async function bringDeps(project: string, folder: string, o: DepsOptions): Promise<DepsResult> {
  const started = performance.now();
  const mode = o.settings.dependencies;
  const done = (r: Omit<DepsResult, 'mode' | 'ms'>): DepsResult => ({ mode, ...r, ms: performance.now() - started });
  if (mode === 'none') return done({ how: 'none', folders: [], leftOut: [] });
  if (mode === 'command') {
    const note = await runInstall(folder, o);
    return done({ how: 'command', folders: [], leftOut: [], ...(note ? { note } : {}) });
  }
  const found = depFolders(project, folder, o.settings.dependencyFolders, o.folders);
  if (!found.length) return done({ how: 'none', folders: [], leftOut: [] });
  const walks = found.map((rel) => ({ rel, from: join(project, rel), walk: walkFolder(join(project, rel)) }));
  const cloning = canClone(walks, folder);
  if (mode === 'clone' && !cloning)
    return done({
      how: 'none',
      folders: [],
      leftOut: [],
      note: 'the file system cannot clone files (copy-on-write): no dependency folders',
    });
  if (!cloning) {
    const bytes = walks.reduce((n, w) => n + w.walk.bytes + w.walk.files.length * 4096, 0);
    const free = (o.freeBytes ?? freeBytesOf)(folder);
    if (free !== undefined && bytes + 1024 * 1024 > free)
      throw new NoRoomError(
        `the disk has ${(free / 1e6).toFixed(1)} MB free where the variant goes and its dependency folders (${found.join(', ')}) take about ${(bytes / 1e6).toFixed(1)} MB; nothing was kept`,
      );
  }
  const leftOut: DepsResult['leftOut'] = [];
  const links: string[] = [];
  for (const { rel, from, walk } of walks) {
    for (const d of walk.dirs) mkdirSync(join(folder, rel, d), { recursive: true });
    for (const l of walk.links) {
      symlinkSync(l.target, join(folder, rel, l.path));
      links.push(`${rel}/${l.path}`);
    }
    leftOut.push(...walk.other.map((p) => ({ path: `${rel}/${p}`, why: 'not a regular file' })));
    await copyAll(from, join(folder, rel), walk.files, cloning, (p) => o.onFile?.(`${rel}/${p}`));
  }
  for (const l of links) {
    const out = linkLeadsOut(folder, l);
    if (!out) continue;
    unlinkSync(join(folder, l));
    leftOut.push({ path: l, why: `a link that leads out of the variant's folder: ${out}` });
  }
  return done({
    how: cloning ? 'cloned' : 'copied',
    folders: walks.map((w) => ({ path: w.rel, files: w.walk.files.length, bytes: w.walk.bytes })),
    leftOut,
  });
}

/** The dependency folders beside the code's folders in the user's folder (real folders, not links; not in the code). */
function depFolders(
  project: string,
  folder: string,
  names: readonly string[],
  codeFolders: readonly string[],
): string[] {
  const out: string[] = [];
  for (const d of codeFolders) {
    for (const n of names) {
      const rel = d ? `${d}/${n}` : n;
      if (isDir(join(project, rel)) && !exists(join(folder, rel))) out.push(rel);
    }
  }
  return out;
}

interface Walk {
  dirs: string[];
  files: { path: string; size: number }[];
  links: { path: string; target: string }[];
  other: string[];
  bytes: number;
}

/** Everything under `root` (not following links): folders first, top down. */
function walkFolder(root: string): Walk {
  const w: Walk = { dirs: [''], files: [], links: [], other: [], bytes: 0 };
  const queue = [''];
  while (queue.length) {
    const rel = queue.pop()!;
    let names;
    try {
      names = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      continue; // unreadable: left out
    }
    for (const d of names) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        w.dirs.push(p);
        queue.push(p);
      } else if (d.isSymbolicLink()) w.links.push({ path: p, target: readlinkSync(join(root, p)) });
      else if (d.isFile()) {
        const size = lstatSync(join(root, p)).size;
        w.files.push({ path: p, size });
        w.bytes += size;
      } else w.other.push(p);
    }
  }
  return w;
}

/** Whether the variant's folder can take copy-on-write clones of these files (tried on one). */
function canClone(walks: { from: string; walk: Walk }[], folder: string): boolean {
  const first = walks.find((w) => w.walk.files.length);
  if (!first) return false;
  const probe = join(folder, `.pi-tree-clone-probe-${process.pid}`);
  try {
    copyFileSync(join(first.from, first.walk.files[0].path), probe, constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Copies `files` (cloned when `clone`), a few at a time (libuv's threads), never over anything. */
async function copyAll(
  from: string,
  to: string,
  files: readonly { path: string }[],
  clone: boolean,
  onFile: (p: string) => void,
): Promise<void> {
  const flags = constants.COPYFILE_EXCL | (clone ? constants.COPYFILE_FICLONE_FORCE : constants.COPYFILE_FICLONE);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++];
      onFile(f.path);
      await copyFile(join(from, f.path), join(to, f.path), flags);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Runs the install command in the variant's folder; a note when it fails (the variant stays). */
function runInstall(folder: string, o: DepsOptions): Promise<string | undefined> {
  const argv = o.settings.installCommand;
  if (!argv.length) return Promise.resolve('no install command is set (variants.installCommand)');
  return new Promise((resolve) => {
    let tail = '';
    const child = spawn(argv[0], argv.slice(1), {
      cwd: folder,
      env: o.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: o.signal,
      windowsHide: true,
    });
    const keep = (d: Buffer) => (tail = (tail + d.toString('utf8')).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 15 * 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve(`the install command ${argv[0]} could not start: ${e.message}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = tail.trim().split('\n').pop() ?? '';
      resolve(
        code === 0 ? undefined : `the install command ${argv.join(' ')} failed (${signal ?? `exit ${code}`}): ${last}`,
      );
    });
  });
}

const isDir = (p: string) => {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
};

const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

function freeBytesOf(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}
