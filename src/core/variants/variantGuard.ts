// A variant never writes into the user's folder: the conversation it forked from names the project's
// files by their absolute paths, and a model may go on using them. The bridge (inside the variant's pi)
// asks this guard before each tool call and blocks pi's `edit` and `write` of a path in the project's
// folder (followed through links), and a `bash` command that names the project's folder or a file in it
// (pi then tells the model why and the call does not run). What a command reaches without naming it
// (a script of its own, `cd ..`) is beyond any guard: a variant runs with the user's rights.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { bashFiles } from '../changes/bashFiles.js';
import { resolveToolPath } from '../changes/fileHistory.js';
import { canonicalCwd } from '../checkpoints/index.js';
import { variantAt } from './variantRecords.js';

/** Why a tool call may not run (it writes into the project's folder), or undefined. */
export type VariantGuard = (toolName: string, input: unknown) => string | undefined;

const within = (inner: string, outer: string) => {
  const rel = relative(outer, inner);
  return rel === '' || (!!rel && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/** Where `abs` leads once links are followed (its nearest existing folder's real path, the rest as named). */
function linkTarget(abs: string): string {
  const rest: string[] = [];
  for (let head = abs; ; head = dirname(head)) {
    try {
      return join(realpathSync.native(head), ...rest.reverse());
    } catch {
      if (dirname(head) === head) return abs;
      rest.push(basename(head));
    }
  }
}

/** The guard of a session whose working folder is `cwd`, when that is a variant's folder pi-tree made. */
export function variantGuard(agentDir: string, cwd: string): VariantGuard | undefined {
  const rec = variantAt(agentDir, cwd);
  if (!rec) return undefined;
  const project = rec.project;
  const forms = [...new Set([project, canonicalCwd(project)])];
  const inProject = (abs: string) =>
    forms.some((p) => within(abs, p)) || within(linkTarget(abs), canonicalCwd(project));
  const words = `the user's folder (${project}): this session is a variant and works in ${rec.folder}; use paths there`;
  return (toolName, input) => {
    const args = (input ?? {}) as Record<string, unknown>;
    if (toolName === 'edit' || toolName === 'write') {
      const p =
        typeof args.path === 'string' ? args.path : typeof args.file_path === 'string' ? args.file_path : undefined;
      if (p && inProject(resolveToolPath(p, rec.folder))) return `${toolName} of ${p} would write into ${words}`;
      return undefined;
    }
    if (toolName === 'bash' && typeof args.command === 'string') {
      const command = args.command;
      if (forms.some((p) => command.includes(p))) return `the command names ${words}`;
      for (const f of bashFiles(command))
        if (inProject(resolveToolPath(f.path, rec.folder))) return `the command writes ${f.path}, in ${words}`;
    }
    return undefined;
  };
}
