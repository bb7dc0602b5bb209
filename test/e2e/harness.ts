// End-to-end harness: the extension in a real VS Code (code-server) driven by headless Debian
// Chromium through playwright-core. One `scenario()` = one fresh server + browser + workspace with pi
// sessions in pi's real layout under a temp PI_CODING_AGENT_DIR; a screenshot of the end state goes
// to test-results/e2e/<scenario>.png, and on failure the logs go next to it.
// VS Code-internal selectors live in selectors.ts only.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { chromium, type BrowserContext, type FrameLocator, type Locator, type Page } from 'playwright-core';
import tools from '../../scripts/tools.json';
import { extensionId, findLogs, repoRoot, startCodeServer, type CodeServer } from '../../scripts/lib/codeServer.js';
import { writeDemoSessions, type DemoSessions } from '../../scripts/lib/demoSessions.js';
import { until } from '../../scripts/lib/until.js';
import * as sel from './selectors.js';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
/** What package.json contributes, so a rename there does not silently break the scenarios. */
export const contributed = {
  extensionId,
  containerId: manifest.contributes.viewsContainers.activitybar[0].id as string,
  containerTitle: manifest.contributes.viewsContainers.activitybar[0].title as string,
  sessionsViewName: manifest.contributes.views[manifest.contributes.viewsContainers.activitybar[0].id][0]
    .name as string,
  outputChannel: 'pi Session Tree',
};

export const artifactsDir = join(repoRoot, 'test-results', 'e2e');
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
/** Generous: 2 cores shared with other suites; a scenario takes 10-30 s. */
export const SCENARIO_TIMEOUT = 240_000;
const UI_TIMEOUT = 60_000;

export interface ScenarioOptions {
  /** Sessions to put under the temp PI_CODING_AGENT_DIR for the workspace: the demo set (default), none, or your own. */
  sessions?:
    | 'demo'
    | 'none'
    | ((where: { agentDir: string; workspace: string }) => void | DemoSessions | Promise<void | DemoSessions>);
  /** The built checkout (default), an installed .vsix, or none (negative tests). */
  extension?: 'checkout' | 'none' | { vsix: string };
  /** More extension folders to load next to ours (test fixtures). */
  extraExtensions?: string[];
  /** Keep Workspace Trust on (off by default). */
  workspaceTrust?: boolean;
  /** User settings, or a function giving them at launch (e.g. with a test server's port). */
  settings?: Record<string, unknown> | (() => Record<string, unknown>);
  /** Extra environment of the server (so of the extension host and terminals), or a function giving it at launch. */
  env?: Record<string, string | undefined> | (() => Record<string, string | undefined>);
  /** The scenario provokes errors on purpose: skip the final "no [error] in our log" check. */
  expectErrors?: boolean;
  /** Test timeout in ms. */
  timeout?: number;
}

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}

/** A running VS Code with the extension, as a scenario sees it. */
export class VSCode {
  readonly consoleErrors: string[] = [];
  /** Milliseconds since launch() began at which each phase ended (reported per scenario). */
  readonly timings: Record<string, number> = {};
  demo?: DemoSessions;

  private constructor(
    readonly scenario: string,
    readonly runDir: string,
    readonly workspace: string,
    readonly agentDir: string,
    readonly server: CodeServer,
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly t0: number,
  ) {}

  /** Starts server and browser and opens the workbench on the workspace. Cleans up if any step fails. */
  static async launch(scenario: string, opts: ScenarioOptions = {}): Promise<VSCode> {
    if (!existsSync(tools.chromium))
      throw new Error(`${tools.chromium} is missing: run \`node scripts/ensure-tools.mjs\``);
    const runDir = mkdtempSync(join(tmpdir(), `pi-tree-e2e-${scenario.slice(0, 30)}-`));
    const workspace = join(runDir, 'workspace');
    const agentDir = join(runDir, 'pi-agent');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(agentDir, { recursive: true });
    let demo: DemoSessions | undefined;
    const sessions = opts.sessions ?? 'demo';
    if (sessions === 'demo') demo = writeDemoSessions(agentDir, workspace);
    else if (typeof sessions === 'function') demo = (await sessions({ agentDir, workspace })) ?? undefined;

    let server: CodeServer | undefined;
    let context: BrowserContext | undefined;
    let vs: VSCode | undefined;
    const started = Date.now();
    try {
      server = await startCodeServer({
        runDir,
        workspace,
        extension: opts.extension ?? 'checkout',
        extraExtensions: opts.extraExtensions,
        env: {
          PI_CODING_AGENT_DIR: agentDir,
          PI_CODING_AGENT_SESSION_DIR: undefined,
          ...(typeof opts.env === 'function' ? opts.env() : opts.env),
        },
        settings: typeof opts.settings === 'function' ? opts.settings() : opts.settings,
        workspaceTrust: opts.workspaceTrust,
      });
      const serverReady = Date.now() - started;
      context = await chromium.launchPersistentContext(join(runDir, 'chromium'), {
        executablePath: tools.chromium,
        headless: true,
        env: server.env as Record<string, string>,
        args: CHROMIUM_ARGS,
        viewport: { width: 1400, height: 900 },
      });
      // Scenario waits without an explicit timeout get the harness's generous one, not playwright's 30 s.
      context.setDefaultTimeout(UI_TIMEOUT);
      const page = context.pages()[0] ?? (await context.newPage());
      const running = (vs = new VSCode(scenario, runDir, workspace, agentDir, server, context, page, started));
      running.demo = demo;
      running.mark('server', serverReady);
      running.mark('browser');
      page.on('console', (m) => {
        if (m.type() === 'error') running.consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => running.consoleErrors.push(`pageerror: ${e.message}`));
      await page.goto(server.workspaceUrl);
      await page.locator(sel.workbench.ready).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      running.mark('workbench');
      return running;
    } catch (e) {
      if (vs) {
        await vs.close(e); // screenshot + logs + shutdown
        throw e;
      }
      await context?.close().catch(() => {});
      if (server) {
        mkdirSync(artifactsDir, { recursive: true });
        writeFileSync(
          join(artifactsDir, `${scenario}.log`),
          `launch failed: ${e}\n\n== code-server ==\n${server.output()}`,
        );
        await server.stop();
      }
      if (!process.env.PI_TREE_E2E_KEEP) rmSync(runDir, { recursive: true, force: true });
      throw e;
    }
  }

  /**
   * Another window of this VS Code: a new tab of the same browser (so VS Code's webview service worker,
   * installed by an earlier window, is already there) on the same workspace. It shares the server and
   * the browser: close this one, not the new one.
   */
  async newWindow(): Promise<VSCode> {
    const page = await this.context.newPage();
    const win = new VSCode(
      `${this.scenario}-window`,
      this.runDir,
      this.workspace,
      this.agentDir,
      this.server,
      this.context,
      page,
      Date.now(),
    );
    win.demo = this.demo;
    page.on('console', (m) => {
      if (m.type() === 'error') win.consoleErrors.push(m.text());
    });
    await page.goto(this.server.workspaceUrl);
    await page.locator(sel.workbench.ready).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    win.mark('workbench');
    return win;
  }

  /** Records that a phase ended now (or at `at` ms after launch). */
  mark(phase: string, at = Date.now() - this.t0): void {
    this.timings[phase] = at;
  }

  timingSummary(): string {
    return Object.entries(this.timings)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
      .join(', ');
  }

  // ---- workbench -------------------------------------------------------------------------------

  /** Our activity-bar entry; it appears 1-2 s after the workbench (wait for it, never count it once). */
  activityItem(containerId = contributed.containerId): Locator {
    return this.page.locator(sel.activityBarItem(containerId));
  }

  /** Opens our view container in the side bar (unless it is open already) and returns it. */
  async openContainer(containerId = contributed.containerId): Promise<Locator> {
    const item = this.activityItem(containerId);
    await item.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const container = this.page.locator(sel.viewContainer(containerId));
    if (!(await container.isVisible())) await item.click();
    await container.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    return container;
  }

  /** The side bar's title, e.g. "pi Sessions: Sessions". */
  sideBarTitle(): Locator {
    return this.page.locator(sel.workbench.sideBarTitle);
  }

  /** One view (pane) of our container, e.g. the Sessions view. */
  view(viewName = contributed.sessionsViewName, containerId = contributed.containerId): Locator {
    return this.page.locator(sel.viewPane(containerId, viewName));
  }

  /** Rows of a TreeView in a view; filter with `.filter({ hasText })` or getByRole('treeitem'). */
  treeRows(view: Locator = this.view()): Locator {
    return view.locator(sel.pane.treeRow);
  }

  /**
   * Runs a command from the palette by its title as shown there (e.g. "pi Sessions: Refresh").
   * The palette lists the commands known when it opens, and extensions register theirs a few
   * seconds after the workbench appears: so it reopens the palette until the command shows up.
   * `thenInput`: the command opens its own quick input (input box, QuickPick): wait for that instead.
   */
  async runCommand(title: string, opts: { thenInput?: boolean; timeoutMs?: number } = {}): Promise<void> {
    const input = this.page.locator(sel.quickInput.input);
    const row = this.page.locator(sel.quickInput.row).filter({ hasText: title }).first();
    const deadline = Date.now() + (opts.timeoutMs ?? UI_TIMEOUT);
    // An attempt can also fail because the palette closes under us (an editor or webview that is
    // still opening takes the focus): every failure closes it and starts over until the deadline.
    for (;;) {
      const attempt = Math.min(10_000, Math.max(1, deadline - Date.now()));
      try {
        if (!(await this.page.locator(sel.quickInput.commandInput).isVisible())) {
          await this.page
            .locator(sel.workbench.statusBar)
            .click({ position: { x: 5, y: 5 }, timeout: attempt })
            .catch(() => {});
          await this.page.keyboard.press('F1');
        }
        // One input event with the whole query: typing it key by key took seconds on a loaded machine.
        await input.fill(`>${title}`, { timeout: attempt });
        await row.waitFor({ state: 'visible', timeout: Math.min(5_000, attempt) });
        // Inside the retry: the palette can still close between finding the row and clicking it.
        await row.click({ timeout: Math.min(5_000, attempt) });
        break;
      } catch (e) {
        if (Date.now() >= deadline)
          throw new Error(`command "${title}" could not be run from the palette: ${e}`, { cause: e });
        if (await input.isVisible()) await this.page.keyboard.press('Escape');
        await input.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
      }
    }
    if (opts.thenInput) {
      await this.page.locator(sel.quickInput.commandInput).waitFor({ state: 'detached', timeout: UI_TIMEOUT });
      await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      return;
    }
    await input.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  }

  /** The outer <iframe> element(s) of an extension's webviews (e.g. to count or wait for them). */
  webviewElement(extension = contributed.extensionId): Locator {
    return this.page.locator(sel.webview.outer(extension));
  }

  /** Content of our extension's webview (two iframes down; filtered on extensionId). */
  webview(extension = contributed.extensionId): FrameLocator {
    return this.page.frameLocator(sel.webview.outer(extension)).frameLocator(sel.webview.inner);
  }

  /** Notification toasts currently shown (filter with hasText). */
  notifications(): Locator {
    return this.page.locator(sel.notifications.toast);
  }

  // ---- files and logs --------------------------------------------------------------------------

  /**
   * Polls a file until `check(text)` returns a value (not undefined/false) and returns it; `check`
   * may throw while the content is incomplete (e.g. JSON of a half-written line). Never reads once.
   */
  pollFile<T>(file: string, check: (text: string) => T | undefined | false, timeoutMs = 20_000): Promise<T> {
    let last = '';
    let lastError: unknown;
    return until(
      () => {
        try {
          last = readFileSync(file, 'utf8');
          return check(last);
        } catch (e) {
          lastError = e;
          return undefined;
        }
      },
      timeoutMs,
      () =>
        `${file} to reach the expected content${lastError ? ` (last error: ${lastError})` : ''}; last content ends:\n${last.slice(-2000)}`,
      100,
    );
  }

  /** Text of an output channel's log (LogOutputChannel), '' until VS Code has written it. */
  outputChannel(name = contributed.outputChannel): string {
    return findLogs(this.server.dirs, (f) => basename(f) === `${name}.log` || basename(f).endsWith(`-${name}.log`))
      .map((f) => readFileSync(f, 'utf8'))
      .join('');
  }

  /** `[error]` lines our extension logged (failed commands, exceptions it caught and reported). */
  extensionErrors(): string[] {
    return this.outputChannel()
      .split('\n')
      .filter((l) => /\[error\]/.test(l));
  }

  /** Fails if the extension logged an error; scenario() calls it after the steps (see expectErrors). */
  assertNoExtensionErrors(): void {
    const errors = this.extensionErrors();
    if (errors.length)
      throw new Error(
        `the extension logged ${errors.length} error(s) in "${contributed.outputChannel}":\n${errors.join('\n')}`,
      );
  }

  /** Waits until an output channel's log contains `text`. */
  waitForOutput(text: string | RegExp, channel = contributed.outputChannel, timeoutMs = UI_TIMEOUT): Promise<string> {
    let log = '';
    return until(
      () => {
        log = this.outputChannel(channel);
        return (typeof text === 'string' ? log.includes(text) : text.test(log)) ? log : undefined;
      },
      timeoutMs,
      () => `output channel "${channel}" to show ${text}; it holds:\n${log || '(nothing)'}`,
      200,
    );
  }

  /** The remote extension host's log (activation errors end up here). */
  extensionHostLog(): string {
    return findLogs(
      this.server.dirs,
      (f) => /exthost\d*\.log$/.test(basename(f)) || basename(f) === 'remoteexthost.log',
    )
      .map((f) => `== ${f}\n${readFileSync(f, 'utf8')}`)
      .join('\n');
  }

  /**
   * Environment of the running extension host process(es), read from /proc: proves what the
   * extension sees (e.g. PI_CODING_AGENT_DIR) without asking the extension.
   */
  extensionHostEnv(): Record<string, string>[] {
    const pgid = this.server.process.pid!;
    const envs: Record<string, string>[] = [];
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[2]) !== pgid) continue; // field 5 of stat: process group
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!/extensionHost/i.test(cmdline)) continue;
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
        envs.push(Object.fromEntries(env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])));
      } catch {
        /* process ended meanwhile */
      }
    }
    return envs;
  }

  // ---- artifacts and shutdown ------------------------------------------------------------------

  /** Saves a screenshot as test-results/e2e/<scenario>[--<step>].png and returns its path. */
  async screenshot(step?: string): Promise<string> {
    mkdirSync(artifactsDir, { recursive: true });
    const file = join(artifactsDir, `${this.scenario}${step ? `--${slug(step)}` : ''}.png`);
    await this.page.screenshot({ path: file, timeout: 15_000 });
    return file;
  }

  private closing?: Promise<void>;

  /** End-state screenshot, logs on failure, then browser and the server's whole process group go. */
  close(failure?: unknown): Promise<void> {
    return (this.closing ??= (async () => {
      await this.screenshot().catch(() => {});
      if (failure) {
        mkdirSync(artifactsDir, { recursive: true });
        const logs = [
          `failure: ${failure instanceof Error ? failure.stack : failure}`,
          `== browser console errors ==\n${this.consoleErrors.join('\n')}`,
          `== output channel ${contributed.outputChannel} ==\n${this.outputChannel()}`,
          `== extension host ==\n${this.extensionHostLog()}`,
          `== code-server ==\n${this.server.output()}`,
        ];
        writeFileSync(join(artifactsDir, `${this.scenario}.log`), logs.join('\n\n'));
      } else rmSync(join(artifactsDir, `${this.scenario}.log`), { force: true }); // no stale failure log
      await this.context.close().catch(() => {});
      await this.server.stop();
      this.mark('closed');
      if (process.env.PI_TREE_E2E_KEEP) console.log(`kept ${this.runDir}`);
      else rmSync(this.runDir, { recursive: true, force: true });
    })());
  }
}

/**
 * Declares one end-to-end scenario as a node:test test: a fresh VS Code with the extension and (by
 * default) the demo sessions, your steps, then a check that the extension logged no error, then
 * screenshot + clean shutdown whatever happened.
 */
export function scenario(name: string, steps: (vs: VSCode) => Promise<void>, opts: ScenarioOptions = {}): void {
  test(name, { timeout: opts.timeout ?? SCENARIO_TIMEOUT }, async (t) => {
    const vs = await VSCode.launch(slug(name), opts);
    try {
      await steps(vs);
      vs.mark('steps');
      if (!opts.expectErrors) vs.assertNoExtensionErrors();
    } catch (e) {
      await vs.close(e);
      t.diagnostic(`timings (since launch): ${vs.timingSummary()}`);
      throw e;
    }
    await vs.close();
    t.diagnostic(`timings (since launch): ${vs.timingSummary()}`);
  });
}
