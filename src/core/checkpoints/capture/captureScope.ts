// What a capture may hold, and where it holds nothing. pi's own files are never the project: pi's agent
// dir (pi-tree's store and the restore journals are in it), its session folders and the bridge's
// records stay out of every snapshot even when they lie inside the working folder (`privatePrefixes`,
// for the store's excludes, the listed snapshot, the folder watcher and the restore side). And a working
// folder that is the home folder, a filesystem root, or far too large to snapshot is not captured at all
// unless the user opts in for it (`captureBlocked`): a baseline there would copy everything the user
// has into the store, and pi's first tool call would wait for it. `walkFolder` is the capped walk that
// counts a folder's files at session start; it also finds what git's walk never lists (FIFOs, sockets)
// and the private permission bits of every file, for the baseline.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { lstatOrUndefined } from '../store/storeFiles.js';
import { privateBits } from '../fileMode.js';
import { canonicalCwd, variantsRoot, type CheckpointSettings } from '../store/storePaths.js';
import { canonicalPath, inside, underPrefix } from '../store/storeScope.js';

/** The setting that opts a folder in (VS Code), and the settings.json field it writes. */
export const OPT_IN_SETTING = 'piTree.checkpoints.allowLargeFolder';

export interface BlockOptions {
  /** pi's agent dir and the other folders of the agent's own (a working folder inside one is not captured). */
  agentDir?: string;
  privateDirs?: readonly string[];
  /** The home folder (default os.homedir()). */
  home?: string;
  /** The folder's file count from walkFolder (capped); the too-large check needs it. */
  files?: number;
}

/**
 * Why capture stays off in `cwd` though the settings leave it on, or undefined: the working folder is
 * pi's own folder, the home folder, a filesystem root, or has `files` ≥ the bound. The last three give
 * way to the user's opt-in (`allowedFolders`, which `piTree.checkpoints.allowLargeFolder` writes). Pure
 * but for resolving paths: the host calls it for the sessions it shows.
 */
export function captureBlocked(settings: CheckpointSettings, cwd: string, o: BlockOptions = {}): string | undefined {
  const real = canonicalCwd(cwd);
  // (a variant's folder lies in the agent dir, but holds a project's code: captured as a project)
  const variant = !!o.agentDir && !!inside(canonicalPath(variantsRoot(o.agentDir)), real);
  for (const d of [variant ? undefined : o.agentDir, ...(o.privateDirs ?? [])]) {
    if (d && inside(canonicalPath(d), real) !== undefined)
      return `the working folder is inside pi's own folder (${d}), whose files checkpoints never hold`;
  }
  if (settings.allowedFolders.some((f) => canonicalCwd(f) === real)) return undefined;
  const optIn = `turn on ${OPT_IN_SETTING} for it in VS Code (or add it to checkpoints.allowedFolders in pi-tree's settings.json)`;
  if (real === canonicalCwd(o.home ?? homedir()))
    return `the working folder is your home folder: a snapshot would copy all of it; to capture here anyway, ${optIn}`;
  if (dirname(real) === real)
    return `the working folder is the root of a drive: a snapshot would copy all of it; to capture here anyway, ${optIn}`;
  const max = settings.maxFiles;
  if (o.files !== undefined && max > 0 && o.files >= max)
    return `the working folder holds ${max.toLocaleString('en-US')} files or more to snapshot; to capture here anyway, ${optIn}`;
  return undefined;
}

export interface FolderWalk {
  /** Files and links counted (stops at the cap). */
  files: number;
  /** The walk stopped at the cap: `files` is a lower bound. */
  capped: boolean;
  /** FIFOs, sockets and devices (git's walk leaves them out without a word). */
  special: string[];
  /** Regular files no one but their owner may read, with their permission bits. */
  modes: Map<string, number>;
  ms: number;
}

export interface WalkOptions {
  /** Stop counting here (0: no cap). */
  max: number;
  /** Patterns never captured (the settings' exclude, gitignore syntax): the simple ones are followed. */
  exclude: readonly string[];
  /** Folders of the agent's own (privatePrefixes). */
  skip: readonly string[];
  /** lstat every file for its private permission bits (the baseline's `modes`). */
  modes?: boolean;
  /** Names of specials and modes kept (default 1,000). */
  keep?: number;
}

/**
 * The simple patterns of gitignore lines: a plain name (`dist/`, `/build`, `.env`, folders only with
 * the slash) or a suffix (`*.log`). Anything else (globs in the middle, negations, paths) is not
 * followed: the walk counts those files, which only errs towards more.
 */
function simplePatterns(lines: readonly string[]): {
  names: Set<string>;
  dirs: Set<string>;
  rootNames: Set<string>;
  rootDirs: Set<string>;
  suffixes: string[];
} {
  const out = {
    names: new Set<string>(),
    dirs: new Set<string>(),
    rootNames: new Set<string>(),
    rootDirs: new Set<string>(),
    suffixes: [] as string[],
  };
  for (const raw of lines) {
    const l = raw.trim();
    if (!l || l.startsWith('#') || l.startsWith('!')) continue;
    if (/^\*\.[^*?[\]/\\]+$/.test(l)) {
      out.suffixes.push(l.slice(1));
      continue;
    }
    const anchored = l.startsWith('/');
    const dirOnly = l.endsWith('/');
    const name = l.slice(anchored ? 1 : 0, dirOnly ? -1 : undefined);
    if (!name || /[*?[\]\\/]/.test(name)) continue;
    (anchored ? (dirOnly ? out.rootDirs : out.rootNames) : dirOnly ? out.dirs : out.names).add(name);
  }
  return out;
}

/** Counts `cwd`'s files as a snapshot would see them, up to `o.max`; yields to the event loop every ~8 ms. */
export async function walkFolder(cwd: string, o: WalkOptions): Promise<FolderWalk> {
  const started = performance.now();
  let gitignore: string[] = [];
  try {
    gitignore = readFileSync(join(cwd, '.gitignore'), 'utf8').split('\n');
  } catch {
    // none
  }
  const pat = simplePatterns([...o.exclude, ...gitignore]);
  const keep = o.keep ?? 1000;
  const out: FolderWalk = { files: 0, capped: false, special: [], modes: new Map(), ms: 0 };
  const queue = [''];
  let slice = performance.now();
  walk: while (queue.length) {
    const rel = queue.pop()!;
    let names: Dirent[];
    try {
      names = readdirSync(rel ? join(cwd, rel) : cwd, { withFileTypes: true });
    } catch {
      continue; // gone, or unreadable: git cannot read it either
    }
    if (rel && names.some((d) => d.name === '.git')) {
      out.files++; // a nested repository: one path
      continue;
    }
    for (const d of names) {
      const name = d.name;
      if (name === '.git') continue;
      const path = rel ? `${rel}/${name}` : name;
      let kind: 'dir' | 'file' | 'link' | 'special' | undefined;
      if (d.isDirectory()) kind = 'dir';
      else if (d.isFile()) kind = 'file';
      else if (d.isSymbolicLink()) kind = 'link';
      else if (d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice()) kind = 'special';
      else {
        const st = lstatOrUndefined(join(cwd, path));
        kind = !st
          ? undefined
          : st.isDirectory()
            ? 'dir'
            : st.isFile()
              ? 'file'
              : st.isSymbolicLink()
                ? 'link'
                : 'special';
      }
      if (!kind) continue;
      if (pat.names.has(name) || (!rel && pat.rootNames.has(name))) continue;
      if (kind === 'dir') {
        if (pat.dirs.has(name) || (!rel && pat.rootDirs.has(name)) || underPrefix(path, o.skip)) continue;
        queue.push(path);
        continue;
      }
      if (pat.suffixes.some((s) => name.endsWith(s))) continue;
      if (kind === 'special') {
        if (out.special.length < keep) out.special.push(path);
        continue;
      }
      if (o.modes && kind === 'file') {
        const st = lstatOrUndefined(join(cwd, path));
        const bits = st && privateBits(st);
        if (bits !== undefined && out.modes.size < keep) out.modes.set(path, bits);
      }
      out.files++;
      if (o.max > 0 && out.files >= o.max) {
        out.capped = true;
        break walk;
      }
    }
    if (performance.now() - slice > 8) {
      await new Promise((r) => setImmediate(r));
      slice = performance.now();
    }
  }
  out.ms = performance.now() - started;
  return out;
}
