// Where checkpoints live: under pi's agent dir, in pi-tree's own folder (never in the project):
// `<agentDir>/pi-tree/checkpoints/<project key>/` holds `store.git` (a bare repository of pi-tree's own),
// `index/<session id>` (a private index per session), `sessions/<session id>.jsonl` (which entry has
// which snapshot), `restores/` (the journal of each restore, for undo and for finishing a killed one).
// The project key is the working folder's real path hashed, with its base name for people.
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

export interface ProjectStore {
  /** The project's working folder (the session header's cwd), resolved. */
  cwd: string;
  root: string;
  gitDir: string;
  indexDir: string;
  sessionsDir: string;
  restoresDir: string;
}

export function checkpointsRoot(agentDir: string): string {
  return join(agentDir, 'pi-tree', 'checkpoints');
}

/**
 * Where variants' folders live (src/core/variants): `<agentDir>/pi-tree/variants/`. Inside pi's agent
 * dir but not pi's own files: each holds a copy of a project's code, captured like any project.
 */
export function variantsRoot(agentDir: string): string {
  return join(agentDir, 'pi-tree', 'variants');
}

/** The canonical form of a working folder (symlinks resolved when it exists). */
export function canonicalCwd(cwd: string): string {
  const r = resolve(cwd);
  try {
    return realpathSync.native(r);
  } catch {
    return r;
  }
}

export function projectKey(cwd: string): string {
  const real = canonicalCwd(cwd);
  const hash = createHash('sha256').update(real, 'utf8').digest('hex').slice(0, 16);
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return `${name}-${hash}`;
}

export function projectStore(agentDir: string, cwd: string): ProjectStore {
  const root = join(checkpointsRoot(agentDir), projectKey(cwd));
  return {
    cwd: canonicalCwd(cwd),
    root,
    gitDir: join(root, 'store.git'),
    indexDir: join(root, 'index'),
    sessionsDir: join(root, 'sessions'),
    restoresDir: join(root, 'restores'),
  };
}

/** Session ids name files here: only pi's shapes (a UUID, or hex/word characters) are accepted. */
export function safeSessionId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id))
    throw new Error(`not a session id pi-tree stores checkpoints for: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

/** Checkpoint settings, read from `<agentDir>/pi-tree/settings.json` (written by the extension and the CLI). */
export interface CheckpointSettings {
  /** Capture on (default) or off. */
  enabled: boolean;
  /** Files larger than this are not captured (default 10 MiB). */
  maxFileBytes: number;
  /** Folders and patterns never captured, besides the project's .gitignore (gitignore syntax). */
  exclude: string[];
  /** Working folders where capture is off (the extension's per-workspace setting writes these). */
  disabledFolders: string[];
  /** Per-session and total size caps of the store, in bytes (0: no cap). */
  maxSessionBytes: number;
  maxTotalBytes: number;
  /** Watch the folder (Linux) so that a snapshot looks only at what changed (default on). */
  watch: boolean;
  /**
   * Working folders captured though they are the home folder, a drive's root or too large (canonical
   * paths; the extension's `piTree.checkpoints.allowLargeFolder` writes these). See captureScope.ts.
   */
  allowedFolders: string[];
  /** Files from which a folder is too large to capture without the opt-in (0: no bound). */
  maxFiles: number;
}

export const DEFAULT_EXCLUDES = [
  'node_modules/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '*.pyc',
  '.tox/',
  '.mypy_cache/',
  '.pytest_cache/',
  '.gradle/',
  '.next/',
  '.nuxt/',
  '.turbo/',
  '.parcel-cache/',
  '.cache/',
  'target/',
  '.hg/',
  '.svn/',
  '.jj/',
  '.DS_Store',
  '.*.pi-tree-*.tmp',
];

/**
 * Files (outside .git, nested repositories, the default excludes and the simple patterns of the root
 * .gitignore) from which a working folder is too large to capture without the user's opt-in
 * (captureScope.ts). Measured on 2 cores: the capped walk that counts them takes ~0.5 s at this bound;
 * a baseline of this many files takes minutes, far past the 20 s a snapshot may take in pi.
 */
export const MAX_CAPTURE_FILES = 250_000;

export const DEFAULT_SETTINGS: CheckpointSettings = {
  enabled: true,
  maxFileBytes: 10 * 1024 * 1024,
  exclude: DEFAULT_EXCLUDES,
  disabledFolders: [],
  maxSessionBytes: 512 * 1024 * 1024,
  maxTotalBytes: 4 * 1024 * 1024 * 1024,
  watch: true,
  allowedFolders: [],
  maxFiles: MAX_CAPTURE_FILES,
};

export function settingsFile(agentDir: string): string {
  return join(agentDir, 'pi-tree', 'settings.json');
}

/** The settings, defaults for anything missing or malformed. */
export function readCheckpointSettings(agentDir: string): CheckpointSettings {
  let raw: Record<string, unknown> = {};
  try {
    const v = JSON.parse(readFileSync(settingsFile(agentDir), 'utf8').replace(/^\uFEFF/, '')) as {
      checkpoints?: unknown;
    };
    if (v && typeof v.checkpoints === 'object' && v.checkpoints) raw = v.checkpoints as Record<string, unknown>;
  } catch {
    // none yet, or unreadable: defaults
  }
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  const strs = (v: unknown, d: string[]) =>
    Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : d;
  return {
    enabled: typeof raw.enabled === 'boolean' ? raw.enabled : DEFAULT_SETTINGS.enabled,
    maxFileBytes: num(raw.maxFileBytes, DEFAULT_SETTINGS.maxFileBytes),
    exclude: strs(raw.exclude, DEFAULT_SETTINGS.exclude),
    disabledFolders: strs(raw.disabledFolders, []),
    maxSessionBytes: num(raw.maxSessionBytes, DEFAULT_SETTINGS.maxSessionBytes),
    maxTotalBytes: num(raw.maxTotalBytes, DEFAULT_SETTINGS.maxTotalBytes),
    watch: typeof raw.watch === 'boolean' ? raw.watch : DEFAULT_SETTINGS.watch,
    allowedFolders: strs(raw.allowedFolders, []),
    maxFiles: num(raw.maxFiles, DEFAULT_SETTINGS.maxFiles),
  };
}

/** Is capture on for this working folder? */
export function captureEnabled(s: CheckpointSettings, cwd: string): boolean {
  if (!s.enabled) return false;
  const real = canonicalCwd(cwd);
  return !s.disabledFolders.some((d) => canonicalCwd(d) === real);
}
