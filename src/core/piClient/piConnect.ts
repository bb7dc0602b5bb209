// "Connect pi to pi-tree": the bridge for every pi session, installed the way pi installs a local
// package: a stable copy of dist/pi-bridge.js in `<pi's agent dir>/pi-tree/` (the extension's own
// folder changes with each update) and its absolute path in the `packages` list of pi's settings.json
// (so `pi list` shows it and `pi remove` would take it out too). pi's own `pi install` rewrites the
// whole file and stores a relative path, so pi-tree makes one small text insertion instead, records it,
// and "Disconnect" removes exactly that text: settings.json is byte-identical afterwards when nobody
// touched that spot, and otherwise only pi-tree's entry is taken out. A settings.json that starts with a
// UTF-8 byte-order mark is read as pi reads it (settings-manager.js: stripBom) and keeps its mark when
// rewritten. No vscode import (tested in Node).
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { applyEdits, findNodeAtLocation, modify, parseTree, type Node } from 'jsonc-parser';
import { ensurePrivateDir } from '../platform/privateDir.js';
import { agentDirOf } from './paths.js';

export interface ConnectPaths {
  agentDir: string;
  settingsFile: string;
  /** `<agentDir>/pi-tree`: the stable copy and the record of what connect changed. */
  dir: string;
  bridgeCopy: string;
  stateFile: string;
}

/** What connect changed, so that disconnect reverses exactly that. */
interface ConnectState {
  version: 1;
  settingsFile: string;
  /** The string added to `packages` (the copy's absolute path). */
  entry: string;
  /** The text inserted into settings.json; '' when the entry was listed already (nothing inserted). */
  inserted: string;
  /** settings.json did not exist: connect created it with exactly `inserted`. */
  createdFile: boolean;
  /** The `packages` key did not exist: connect added it. */
  createdKey: boolean;
}

export type ConnectStatus =
  | { connected: false; paths: ConnectPaths }
  | { connected: true; paths: ConnectPaths; listed: boolean; upToDate: boolean };

export class PiSettingsError extends Error {
  override name = 'PiSettingsError';
}

export function connectPaths(env: NodeJS.ProcessEnv = process.env): ConnectPaths {
  const agentDir = agentDirOf(env);
  const dir = join(agentDir, 'pi-tree');
  return {
    agentDir,
    settingsFile: join(agentDir, 'settings.json'),
    dir,
    bridgeCopy: join(dir, 'pi-bridge.js'),
    stateFile: join(dir, 'connect.json'),
  };
}

const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function readState(p: ConnectPaths): ConnectState | undefined {
  try {
    const s = JSON.parse(readFileSync(p.stateFile, 'utf8')) as ConnectState;
    return s && s.version === 1 && typeof s.entry === 'string' && typeof s.inserted === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

const BOM = '\uFEFF';

/** settings.json's text as pi reads it (a leading byte-order mark taken off, as pi's stripBom does) and the mark. */
function readSettingsText(file: string): { bom: string; text: string } {
  const raw = readFileSync(file, 'utf8');
  return raw.startsWith(BOM) ? { bom: BOM, text: raw.slice(1) } : { bom: '', text: raw };
}

/**
 * Rewrites the user's settings.json: the file a symlink points to (a dotfiles repo keeps its link and
 * gets the change), with its mode kept, and its bytes before kept beside it (`.pi-tree.bak`, the last one).
 * The backup is written like the file itself: a fresh temp name (O_EXCL, which never follows a link)
 * renamed over the old backup, so a symlink planted under the backup's name is replaced, never followed.
 */
function writeSettings(file: string, data: string): void {
  const real = realpathSync(file);
  const mode = statSync(real).mode & 0o7777;
  writeAtomic(`${real}.pi-tree.bak`, readFileSync(real), mode);
  writeAtomic(real, data, mode);
}

/**
 * Writes `data` atomically (a temp file beside it, created with O_EXCL, then renamed over `file`), so pi
 * never reads half a file and a symlink at `file` is replaced rather than written through.
 */
function writeAtomic(file: string, data: string | Buffer, mode = 0o600): void {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, data, { mode, flag: 'wx' });
  try {
    chmodSync(tmp, mode); // (the umask took its bits off)
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // gone
    }
    throw e;
  }
}

function parseSettings(text: string, file: string): { root: Node; value: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PiSettingsError(
      `${file} is not valid JSON (${(e as Error).message}); pi-tree changes nothing in it. Fix it (or run pi once) and try again.`,
    );
  }
  const root = parseTree(text);
  if (!root || root.type !== 'object' || typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PiSettingsError(`${file} does not hold a JSON object; pi-tree changes nothing in it.`);
  return { root, value: value as Record<string, unknown> };
}

/** The whitespace in front of `node`, back to the previous "," "[" or "{" (the file's own indentation). */
function leadingSpace(text: string, node: Node): string {
  let i = node.offset;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return text.slice(i, node.offset);
}

/** One insertion (offset, text) adding `entry` to `packages`, in the file's own layout. */
function planInsertion(
  text: string,
  root: Node,
  entry: string,
): { offset: number; inserted: string; createdKey: boolean } {
  const item = JSON.stringify(entry);
  const list = findNodeAtLocation(root, ['packages']);
  if (list) {
    if (list.type !== 'array')
      throw new PiSettingsError('"packages" in pi\'s settings.json is not a list; pi-tree changes nothing in it.');
    const kids = list.children ?? [];
    if (!kids.length) return { offset: list.offset + 1, inserted: item, createdKey: false };
    const last = kids[kids.length - 1];
    return {
      offset: last.offset + last.length,
      inserted: `,${leadingSpace(text, last) || ' '}${item}`,
      createdKey: false,
    };
  }
  const props = root.children ?? [];
  if (!props.length)
    return { offset: root.offset + 1, inserted: `\n  "packages": [\n    ${item}\n  ]\n`, createdKey: true };
  const last = props[props.length - 1];
  const space = leadingSpace(text, last) || ' ';
  const indent = space.replace(/^[\r\n]+/, '');
  const nl = space.slice(0, space.length - indent.length);
  const inner = nl ? `${nl}${indent}${indent || '  '}${item}${nl}${indent}` : item;
  return { offset: last.offset + last.length, inserted: `,${space}"packages": [${inner}]`, createdKey: true };
}

/** Is the pi-tree bridge installed for every pi session, and is the copy the current bundle? */
export function connectStatus(bundledBridge: string, env: NodeJS.ProcessEnv = process.env): ConnectStatus {
  const paths = connectPaths(env);
  const state = readState(paths);
  if (!state) return { connected: false, paths };
  const listed = (() => {
    try {
      const v = JSON.parse(readSettingsText(paths.settingsFile).text) as { packages?: unknown };
      return Array.isArray(v.packages) && v.packages.includes(state.entry);
    } catch {
      return false;
    }
  })();
  const upToDate = (() => {
    try {
      return digest(readFileSync(paths.bridgeCopy)) === digest(readFileSync(bundledBridge));
    } catch {
      return false;
    }
  })();
  return { connected: true, paths, listed, upToDate };
}

/** Replaces the stable copy with the current bundle (after an update of pi-tree); only when connected. */
export function refreshBridgeCopy(bundledBridge: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const st = connectStatus(bundledBridge, env);
  if (!st.connected || st.upToDate) return false;
  writeAtomic(st.paths.bridgeCopy, readFileSync(bundledBridge), 0o644);
  return true;
}

/**
 * Installs the bridge for every pi session of this agent directory. Idempotent: connecting twice
 * changes nothing more. Returns the paths (for the message to the user).
 */
export function connectPi(bundledBridge: string, env: NodeJS.ProcessEnv = process.env): ConnectPaths {
  const paths = connectPaths(env);
  if (readState(paths)) {
    refreshBridgeCopy(bundledBridge, env);
    return paths;
  }
  const bundle = readFileSync(bundledBridge);
  const existed = existsSync(paths.settingsFile);
  const read = existed ? readSettingsText(paths.settingsFile) : undefined;
  const text = read?.text;
  let next: string;
  let state: ConnectState;
  const entry = paths.bridgeCopy;
  if (text === undefined) {
    next = `{\n  "packages": [\n    ${JSON.stringify(entry)}\n  ]\n}\n`;
    state = {
      version: 1,
      settingsFile: paths.settingsFile,
      entry,
      inserted: next,
      createdFile: true,
      createdKey: true,
    };
  } else {
    const { root, value } = parseSettings(text, paths.settingsFile);
    if (Array.isArray(value.packages) && value.packages.includes(entry)) {
      next = text;
      state = {
        version: 1,
        settingsFile: paths.settingsFile,
        entry,
        inserted: '',
        createdFile: false,
        createdKey: false,
      };
    } else {
      const ins = planInsertion(text, root, entry);
      next = text.slice(0, ins.offset) + ins.inserted + text.slice(ins.offset);
      const check = JSON.parse(next) as { packages?: unknown[] };
      if (!check.packages?.includes(entry))
        throw new PiSettingsError("pi-tree could not add its entry to pi's settings.json; nothing was changed.");
      state = {
        version: 1,
        settingsFile: paths.settingsFile,
        entry,
        inserted: ins.inserted,
        createdFile: false,
        createdKey: ins.createdKey,
      };
    }
  }
  ensurePrivateDir(paths.dir);
  // The copy first: pi must never find a settings entry without its file.
  writeAtomic(paths.bridgeCopy, bundle, 0o644);
  writeAtomic(paths.stateFile, `${JSON.stringify(state, null, 2)}\n`);
  if (next !== text) {
    try {
      if (existed) writeSettings(paths.settingsFile, read!.bom + next);
      else writeFileSync(paths.settingsFile, next, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      unlinkQuiet(paths.stateFile);
      unlinkQuiet(paths.bridgeCopy);
      throw e;
    }
  }
  return paths;
}

export interface DisconnectResult {
  /** settings.json is back to its bytes before connect (or removed, when connect created it). */
  exact: boolean;
  paths: ConnectPaths;
}

/**
 * Reverses connectPi: takes out the text it inserted (or, when that spot was rewritten since, only its
 * entry), deletes the copy and the record. Returns undefined when pi-tree had not connected pi.
 */
export function disconnectPi(env: NodeJS.ProcessEnv = process.env): DisconnectResult | undefined {
  const paths = connectPaths(env);
  const state = readState(paths);
  if (!state) return undefined;
  let exact = true;
  const read = existsSync(state.settingsFile) ? readSettingsText(state.settingsFile) : undefined;
  const text = read?.text;
  if (text !== undefined && state.inserted) {
    if (state.createdFile && !read!.bom && text === state.inserted) unlinkSync(state.settingsFile);
    else {
      const next = removeInserted(text, state) ?? removeStructurally(text, state);
      exact = next.exact;
      if (next.text !== text) writeSettings(state.settingsFile, read!.bom + next.text);
    }
  }
  unlinkQuiet(paths.bridgeCopy);
  unlinkQuiet(paths.stateFile);
  try {
    rmdirSync(paths.dir); // only when empty: nothing else of the user's goes
  } catch {
    // not empty, or gone
  }
  return { exact, paths };
}

/** The settings minus pi-tree's entry (and its key when connect added the key and it holds nothing else). */
function withoutEntry(value: Record<string, unknown>, state: ConnectState): Record<string, unknown> {
  const out = { ...value };
  if (Array.isArray(out.packages)) {
    const i = out.packages.indexOf(state.entry);
    const rest = i < 0 ? out.packages : [...out.packages.slice(0, i), ...out.packages.slice(i + 1)];
    if (state.createdKey && rest.length === 0) delete out.packages;
    else out.packages = rest;
  }
  return out;
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

/** Byte-exact reversal: the inserted text, found once, taken out, leaves exactly the settings without the entry. */
function removeInserted(text: string, state: ConnectState): { text: string; exact: true } | undefined {
  const at = text.indexOf(state.inserted);
  if (at < 0 || text.indexOf(state.inserted, at + 1) >= 0) return undefined;
  const next = text.slice(0, at) + text.slice(at + state.inserted.length);
  try {
    const want = withoutEntry(JSON.parse(text) as Record<string, unknown>, state);
    return canonical(JSON.parse(next)) === canonical(want) ? { text: next, exact: true } : undefined;
  } catch {
    return undefined;
  }
}

/** The spot was rewritten (pi saved its settings meanwhile): take out the entry only, with a JSON edit. */
function removeStructurally(text: string, state: ConnectState): { text: string; exact: false } {
  const { value } = parseSettings(text, state.settingsFile);
  if (!Array.isArray(value.packages)) return { text, exact: false };
  const i = value.packages.indexOf(state.entry);
  if (i < 0) return { text, exact: false };
  const indent = /\n(\t| +)"/.exec(text)?.[1] ?? '  ';
  const formattingOptions = {
    insertSpaces: indent[0] !== '\t',
    tabSize: indent[0] === '\t' ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
  const path = state.createdKey && value.packages.length === 1 ? ['packages'] : ['packages', i];
  return { text: applyEdits(text, modify(text, path, undefined, { formattingOptions })), exact: false };
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone
  }
}
