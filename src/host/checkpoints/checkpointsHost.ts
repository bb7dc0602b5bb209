// Checkpoints in the extension, made once at activation: the code documents, the restore
// flow, and the settings the capture inside pi reads. pi runs outside VS Code, so the workspace's
// `piTree.checkpoints.*` settings are written to `<agentDir>/pi-tree/settings.json` (the only place the
// bridge looks): capture on or off per folder, the opt-in for a folder too large (or the home folder),
// the size limit and the excludes.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { canonicalCwd, DEFAULT_EXCLUDES, settingsFile } from '../../core/checkpoints/index.js';
import type { PiGateway } from '../runningPi/piGateway.js';
import { CodeDocuments } from './codeDocuments.js';
import { CodeRestore } from './codeRestore.js';
import { UndoStatus } from './undoStatus.js';
import { ConflictMarks } from './conflictMarks.js';
import type { Session } from '../../core/session/session.js';

export interface CheckpointsHostDeps {
  agentDir(): string;
  gateway?: PiGateway;
  log(msg: string): void;
  describe(session: Session, id: string): Promise<string>;
}

export function createCheckpoints(context: vscode.ExtensionContext, deps: CheckpointsHostDeps): CodeRestore {
  const docs = new CodeDocuments();
  const undoStatus = new UndoStatus();
  const marks = new ConflictMarks();
  context.subscriptions.push(docs, undoStatus, marks);
  const code = new CodeRestore({
    agentDir: deps.agentDir,
    gateway: deps.gateway,
    docs,
    log: deps.log,
    describe: deps.describe,
    undoStatus,
    marks,
  });
  const sync = () => {
    try {
      syncSettings(deps.agentDir());
    } catch (e) {
      deps.log(`checkpoint settings not written: ${String(e)}`);
    }
  };
  sync();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('piTree.checkpoints') && sync()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => sync()),
  );
  return code;
}

/** Writes the capture's settings for pi (atomic; other keys of the file are kept). */
function syncSettings(agentDir: string): void {
  const file = settingsFile(agentDir);
  let all: Record<string, unknown> = {};
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) all = v as Record<string, unknown>;
  } catch {
    // none yet
  }
  const prev = (all.checkpoints ?? {}) as { disabledFolders?: string[]; allowedFolders?: string[] };
  const folders = vscode.workspace.workspaceFolders ?? [];
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((d): d is string => typeof d === 'string') : []);
  const disabled = new Set(strings(prev.disabledFolders));
  const allowed = new Set(strings(prev.allowedFolders));
  for (const f of folders) {
    const cfg = vscode.workspace.getConfiguration('piTree', f.uri);
    const real = canonicalCwd(f.uri.fsPath);
    if (cfg.get<boolean>('checkpoints.capture', true)) disabled.delete(real);
    else disabled.add(real);
    if (cfg.get<boolean>('checkpoints.allowLargeFolder', false)) allowed.add(real);
    else allowed.delete(real);
  }
  const c = vscode.workspace.getConfiguration('piTree');
  const next = {
    ...all,
    checkpoints: {
      ...prev,
      enabled: true,
      maxFileBytes: Math.max(1, c.get<number>('checkpoints.maxFileSizeMB', 10)) * 1024 * 1024,
      exclude: [
        ...DEFAULT_EXCLUDES,
        ...c.get<string[]>('checkpoints.exclude', []).filter((s) => typeof s === 'string' && s.trim()),
      ],
      disabledFolders: [...disabled].sort(),
      allowedFolders: [...allowed].sort(),
      maxSessionBytes: Math.max(0, c.get<number>('checkpoints.maxSessionMB', 512)) * 1024 * 1024,
      maxTotalBytes: Math.max(0, c.get<number>('checkpoints.maxTotalMB', 4096)) * 1024 * 1024,
      watch: c.get<boolean>('checkpoints.watchFolder', true) !== false,
    },
  };
  const text = `${JSON.stringify(next, null, 2)}\n`;
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}
