// Where variants live and what pi-tree knows of each: `<agentDir>/pi-tree/variants/<project key>/<id>/`
// (private, 0700; the project key is the checkpoint store's: the working folder's real path hashed)
// holds `variant.json`, the record, and `<project's folder name>/`, the variant's folder (the agent sees
// a folder named as the project's). The id is the variant session's id. Records are written whole
// (temp + rename, 0600) and read back at every start: they list the variants and survive restarts. A
// record is data, never a path to delete: a variant's place is always computed from its project and id.
import { lstatSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep, isAbsolute } from 'node:path';
import { canonicalCwd, projectKey, type CheckoutResult, variantsRoot } from '../checkpoints/index.js';
import { SESSION_ID_RE } from '../format/ids.js';
import { samePath } from '../session/repository.js';
import type { DepsResult } from './variantDeps.js';

export type VariantState = 'preparing' | 'ready' | 'running' | 'done' | 'failed' | 'adopted';

export interface VariantRecord {
  v: 1;
  /** The variant session's id (the record's and the folder's name). */
  id: string;
  /** The user's working folder (canonical): the project the variant came from. */
  project: string;
  /** The variant's folder: its session's header `cwd`. */
  folder: string;
  /** The variant's session, beside the one it came from (once made). */
  sessionFile?: string;
  /** The session and entry it was forked from. */
  source: { sessionFile: string; sessionId: string; entryId: string };
  prompt?: string;
  model?: string;
  /** The runner's: preparing → ready → running → done | failed; adopted once its files were adopted. */
  state: VariantState;
  /** The process preparing or running it (a dead one: the state is `interrupted` when read). */
  pid?: number;
  /** Where its session's leaf was when its run ended. */
  leafId?: string | null;
  error?: string;
  /** ISO times. */
  created: string;
  updated: string;
  /** The code written into its folder (restore/codeCheckout.ts), without the list of folders. */
  code?: Omit<CheckoutResult, 'folders'>;
  deps?: DepsResult;
  /** From the start to the last file written (code and dependency folders), in ms. */
  readyMs?: number;
  /** Each adopt of its files into the project (the journal an undo puts back). */
  adopted?: { at: string; journal: string; files: number; undone?: string }[];
}

/** A record as read: `interrupted` when its preparing or running process is gone. */
export type ListedVariant = VariantRecord & { interrupted?: true };

/** The folder of one project's variants. */
export function projectVariants(agentDir: string, project: string): string {
  return join(variantsRoot(agentDir), projectKey(project));
}

export function safeVariantId(id: string): string {
  if (!SESSION_ID_RE.test(id) || id.length > 128)
    throw new Error(`not a variant id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

/** A variant's own folder (record and code), from its project and id. */
export function variantDir(agentDir: string, project: string, id: string): string {
  return join(projectVariants(agentDir, project), safeVariantId(id));
}

/** The name of the variant's code folder: the project's folder name (a safe one). */
export function folderName(project: string): string {
  const n = basename(canonicalCwd(project));
  return !n || n === '.' || n === '..' || n === 'variant.json' || n.includes('\0') ? 'project' : n;
}

const recordFile = (dir: string) => join(dir, 'variant.json');

export function writeRecord(agentDir: string, rec: VariantRecord): void {
  const file = recordFile(variantDir(agentDir, rec.project, rec.id));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...rec, updated: new Date().toISOString() }, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

function readRecordIn(dir: string): ListedVariant | undefined {
  let rec: VariantRecord;
  try {
    rec = JSON.parse(readFileSync(recordFile(dir), 'utf8')) as VariantRecord;
  } catch {
    return undefined;
  }
  if (
    rec?.v !== 1 ||
    typeof rec.id !== 'string' ||
    rec.id !== basename(dir) ||
    typeof rec.project !== 'string' ||
    typeof rec.folder !== 'string'
  )
    return undefined;
  if ((rec.state === 'preparing' || rec.state === 'running') && !alive(rec.pid)) return { ...rec, interrupted: true };
  return rec;
}

export function readRecord(agentDir: string, project: string, id: string): ListedVariant | undefined {
  return readRecordIn(variantDir(agentDir, project, id));
}

/** Changes fields of a record (the runner: state, pid, leaf; an adopt). */
export function updateVariant(
  agentDir: string,
  project: string,
  id: string,
  patch: Partial<Omit<VariantRecord, 'v' | 'id' | 'project' | 'folder' | 'created'>>,
): VariantRecord {
  const rec = readRecord(agentDir, project, id);
  if (!rec) throw new Error(`no variant ${id} of ${project}`);
  const { interrupted: _, ...kept } = rec;
  const next = { ...kept, ...patch };
  writeRecord(agentDir, next);
  return next;
}

/** The variants of `project` (all projects' when none is given), oldest first. */
export function listVariants(agentDir: string, project?: string): ListedVariant[] {
  const homes = project ? [projectVariants(agentDir, project)] : subfolders(variantsRoot(agentDir));
  const out: ListedVariant[] = [];
  for (const home of homes)
    for (const dir of subfolders(home)) {
      const rec = readRecordIn(dir);
      if (rec) out.push(rec);
    }
  return out.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
}

/** Folders in `dir` (not links). */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dir, d.name));
  } catch {
    return [];
  }
}

/**
 * The variant whose folder is `cwd` (a session header's), if pi-tree made one there: `cwd` lies in the
 * variants root as `<key>/<id>/<name>` and that record names this folder.
 */
export function variantAt(agentDir: string, cwd: string): ListedVariant | undefined {
  const root = canonicalCwd(variantsRoot(agentDir));
  const real = canonicalCwd(cwd);
  const rel = relative(root, real);
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  const parts = rel.split(sep);
  if (parts.length !== 3 || !SESSION_ID_RE.test(parts[1])) return undefined;
  const rec = readRecordIn(join(root, parts[0], parts[1]));
  return rec && samePath(rec.folder, real) ? rec : undefined;
}

/** The variant a session file is (its header's cwd is the variant's folder and the record names the file). */
export function variantOfSession(agentDir: string, sessionFile: string, cwd: string): ListedVariant | undefined {
  const rec = variantAt(agentDir, cwd);
  return rec?.sessionFile && samePath(rec.sessionFile, sessionFile) ? rec : undefined;
}

/** Whether a process of ours with this id runs. */
export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `p` is a real folder (not a link to one). */
export function isRealFolder(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
