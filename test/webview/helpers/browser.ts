// Runs the built webview bundle in headless Chromium against a SCRIPTED HOST: a loopback HTTP server
// serves the real HTML (renderWebviewHtml, real CSP) and dist/, an init script provides a fake
// `acquireVsCodeApi` that hands every posted message to Node, and the Node side answers like the
// extension host would (snapshot on `ready`, one reply per request, deltas on demand).
import { createServer, type Server } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { join, extname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type {
  HostMessage,
  NodeView,
  Replies,
  RequestBody,
  RequestKind,
  SessionMeta,
  WebviewMessage,
} from '../../../src/protocol';
import { renderWebviewHtml } from '../../../src/host/panels/webviewHtml';

const ROOT = join(__dirname, '..', '..', '..');
export const CHROMIUM = process.env.PI_TREE_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.html': 'text/html',
};

export interface Served {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves /index.html (the webview document) and /dist/*. The page loads the test build of the webview
 * (dist/test/webview.js, which exposes window.__piTree), or with `shipped` the bundle that ships.
 */
export async function serve(opts: { shipped?: boolean; view?: 'tree' | 'compare' | 'variants' } = {}): Promise<Served> {
  const bundle = opts.shipped ? 'dist' : 'dist/test';
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    if (path === '/' || path === '/index.html') {
      const nonce = randomBytes(18).toString('base64url');
      let html = renderWebviewHtml({
        cspSource: origin,
        nonce,
        scriptUri: `${origin}/${bundle}/webview.js`,
        styleUris: [`${origin}/test-theme.css`, `${origin}/${bundle}/webview.css`],
        codiconUri: `${origin}/dist/codicons/codicon.css`,
        title: 'test session',
        view: opts.view,
      });
      html = html.replace('<body', '<body class="vscode-dark"');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
      return;
    }
    if (path === '/test-theme.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end(readFileSync(join(__dirname, 'theme-dark.css')));
      return;
    }
    const file = join(ROOT, path);
    if (!path.startsWith('/dist/') || path.includes('..') || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/index.html`, close: () => new Promise((r) => server.close(() => r())) };
}

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set PI_TREE_CHROMIUM)`,
    );
  if (!existsSync(join(ROOT, 'dist', 'test', 'webview.js')))
    throw new Error('dist/test/webview.js is missing: run `npm run build` first');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** A test file's browser: the built webview served and Chromium started before its tests, both stopped after. */
export interface WebviewBrowser {
  readonly browser: Browser;
  /** The served page's address. */
  readonly url: string;
  /** The webview in a new browser context of `viewport`, answered by a scripted host holding `session`. */
  open(session: HostSession, viewport?: { width: number; height: number }): Promise<ScriptedHost>;
  /** As `open`, then waits until the webview has said what it selected and is idle: the tree is drawn. */
  opened(session: HostSession, viewport?: { width: number; height: number }): Promise<ScriptedHost>;
}

export function useWebviewBrowser(opts: Parameters<typeof serve>[0] = {}): WebviewBrowser {
  let browser: Browser | undefined;
  let srv: Served | undefined;
  before(async () => {
    srv = await serve(opts);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await srv?.close();
  });
  const ready = () => {
    if (!browser || !srv)
      throw new Error('the browser is started before the tests (useWebviewBrowser at the top level of the file)');
    return { browser, srv };
  };
  return {
    get browser() {
      return ready().browser;
    },
    get url() {
      return ready().srv.url;
    },
    async open(session, viewport = { width: 1280, height: 800 }) {
      const { browser: b, srv: s } = ready();
      const ctx = await b.newContext({ viewport });
      return ScriptedHost.open(ctx, s.url, session);
    },
    async opened(session, viewport) {
      const host = await this.open(session, viewport);
      await host.waitFor((m) => m.type === 'selected', 60_000);
      await idle(host.page);
      return host;
    },
  };
}

/** Selects entry `id` as the host would (an invoke), waits for the page to settle and puts the focus on the tree. */
export async function selectEntry(host: ScriptedHost, id: string): Promise<void> {
  await host.post({ type: 'invoke', action: 'select', id });
  await idle(host.page);
  await host.page.locator('[role="tree"]').focus();
}

/**
 * Fake VS Code API inside the page. State lives in sessionStorage so it survives reloads. A message
 * `{ __testMarker: n }` posted after a host message tells the test the app has handled that one (messages
 * from one window arrive in order); the listener runs before the app's and keeps markers from it.
 */
export const INIT = `(() => {
  window.__markers = new Map();
  window.addEventListener('message', (e) => {
    const d = e.data;
    if (!d || typeof d !== 'object' || !('__testMarker' in d)) return;
    e.stopImmediatePropagation();
    const done = window.__markers.get(d.__testMarker);
    window.__markers.delete(d.__testMarker);
    if (done) done();
  }, true);
  window.__sent = [];
  window.__cspViolations = [];
  window.__contextMenus = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
  window.addEventListener('contextmenu', (e) => {
    const el = e.target && e.target.closest ? e.target.closest('[data-vscode-context]') : null;
    window.__contextMenus.push({ context: el ? el.getAttribute('data-vscode-context') : null, x: e.clientX, y: e.clientY });
  });
  window.acquireVsCodeApi = () => ({
    postMessage(m) { window.__sent.push(JSON.parse(JSON.stringify(m))); window.__toHost(m); },
    getState() { const s = sessionStorage.getItem('vscodeState'); return s ? JSON.parse(s) : undefined; },
    setState(s) { sessionStorage.setItem('vscodeState', JSON.stringify(s)); },
  });
})();`;

type DistOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type DeltaBody = DistOmit<Extract<HostMessage, { rev: number }>, 'rev'>;

/** Scripted answers by request kind, typed like the host's handlers (src/protocol.ts RequestHandlers). */
export type Handlers = {
  [K in RequestKind]: (body: Extract<RequestBody, { kind: K }>) => Replies[K] | Promise<Replies[K]>;
};

export interface HostSession {
  meta: SessionMeta;
  nodes: NodeView[];
  leafId: string | null;
  /** A first screen sent on ready instead of the snapshot (the test posts the snapshot when it wants). */
  preview?: NodeView[];
  /** The preview comes before the count is known (read from the file's end while the rest is read). */
  previewUncounted?: boolean;
}

export function meta(over: Partial<SessionMeta> = {}): SessionMeta {
  return {
    fileName: 'session.jsonl',
    sessionId: 'sess-1',
    cwd: '/work/p',
    live: false,
    diagnostics: [],
    clickAction: 'select',
    summariesAvailable: true,
    restoreToken: 'tok-1',
    ...over,
  };
}

/** The Node side of the bridge: answers like the extension host. */
export class ScriptedHost {
  readonly received: WebviewMessage[] = [];
  readonly requests: RequestBody[] = [];
  rev = 1;
  handlers: Partial<Handlers> = {};
  private waiters: { pred: (m: WebviewMessage) => boolean; resolve: (m: WebviewMessage) => void }[] = [];

  constructor(
    readonly page: Page,
    public session: HostSession,
  ) {}

  static async open(
    ctx: BrowserContext | Browser,
    url: string,
    session: HostSession,
    opts: { viewport?: { width: number; height: number } } = {},
  ): Promise<ScriptedHost> {
    const page = await ctx.newPage({ viewport: opts.viewport ?? { width: 1280, height: 800 } });
    const host = new ScriptedHost(page, session);
    await page.exposeBinding('__toHost', (_src, m: WebviewMessage) => {
      void host.onMessage(m);
    });
    await page.addInitScript(INIT);
    page.on('pageerror', (e) => host.pageErrors.push(String(e)));
    await page.goto(url);
    return host;
  }

  readonly pageErrors: string[] = [];

  async onMessage(m: WebviewMessage): Promise<void> {
    this.received.push(m);
    for (const w of [...this.waiters]) {
      if (w.pred(m)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
    if (m.type === 'ready' && this.session.preview) {
      const s = this.session;
      await this.post({
        type: 'firstScreen',
        rev: this.rev,
        meta: s.meta,
        leafId: s.leafId,
        nodes: s.preview!,
        ...(s.previewUncounted ? {} : { total: s.nodes.length }),
      });
      return;
    }
    if (m.type === 'ready') {
      await this.post({
        type: 'snapshot',
        rev: this.rev,
        meta: this.session.meta,
        leafId: this.session.leafId,
        nodes: this.session.nodes,
      });
      return;
    }
    if (m.type !== 'request') return;
    this.requests.push(m.body);
    const kind = m.body.kind;
    const h = (this.handlers[kind] ?? defaultHandlers(this)[kind]) as (b: RequestBody) => unknown;
    try {
      const data = await h(m.body);
      await this.post({ type: 'reply', seq: m.seq, ok: true, data: data ?? null });
    } catch (e) {
      await this.post({ type: 'reply', seq: m.seq, ok: false, error: (e as Error).message });
    }
  }

  private markers = 0;

  /** Posts a host message and resolves once the app has handled it (its synchronous part). */
  async post(m: HostMessage): Promise<void> {
    // As a JSON string: Playwright's own argument serialization is slow for 100k-node snapshots.
    await this.page
      .evaluate(
        ([json, marker]) =>
          new Promise<void>((resolve) => {
            (window as unknown as { __markers: Map<number, () => void> }).__markers.set(marker, resolve);
            window.postMessage(JSON.parse(json), '*');
            window.postMessage({ __testMarker: marker }, '*');
          }),
        [JSON.stringify(m), ++this.markers] as const,
      )
      .catch(() => undefined); // the page reloaded or closed meanwhile
  }

  async delta(m: DeltaBody): Promise<void> {
    this.rev++;
    await this.post({ ...m, rev: this.rev } as HostMessage);
  }

  /** Resolves with the first message (already received or to come) matching `pred`; fails after `timeout` ms. */
  waitFor(pred: (m: WebviewMessage) => boolean, timeout = 5000): Promise<WebviewMessage> {
    const hit = this.received.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      this.waiters.push(w);
      AbortSignal.timeout(timeout).addEventListener('abort', () => {
        const i = this.waiters.indexOf(w);
        if (i < 0) return;
        this.waiters.splice(i, 1);
        reject(new Error(`timed out waiting for a message; got ${JSON.stringify(this.received.slice(-5))}`));
      });
    });
  }

  /** Waits for the next request of `kind` made after this call. */
  nextRequest<K extends RequestBody['kind']>(kind: K, timeout = 5000): Promise<Extract<RequestBody, { kind: K }>> {
    const start = this.received.length;
    return this.waitFor(
      (m) => m.type === 'request' && m.body.kind === kind && this.received.indexOf(m) >= start,
      timeout,
    ).then((m) => (m as Extract<WebviewMessage, { type: 'request' }>).body as Extract<RequestBody, { kind: K }>);
  }

  requestsOf<K extends RequestBody['kind']>(kind: K): Extract<RequestBody, { kind: K }>[] {
    return this.requests.filter((r) => r.kind === kind) as Extract<RequestBody, { kind: K }>[];
  }
}

/** Answers of the shapes the extension host sends (src/host/treePanel.ts), for requests a test does not script. */
function defaultHandlers(host: ScriptedHost): Handlers {
  return {
    getEntry: (b) => {
      const n = host.session.nodes.find((x) => x.id === b.id);
      if (!n) throw new Error(`unknown entry ${b.id}`);
      return {
        id: n.id,
        entry: {
          type: n.type,
          id: n.id,
          parentId: n.parentId,
          message: { role: n.role, content: [{ type: 'text', text: n.text }] },
        },
        truncated: false,
        onPath: false,
        isLeaf: n.id === host.session.leafId,
      };
    },
    getContext: (b) => ({
      leafId: b.id,
      messages: [{ role: 'user', text: 'hello', tokens: 2, entryId: host.session.nodes[0]?.id }],
      tokens: 2,
      thinkingLevel: 'off',
      model: null,
    }),
    moveTo: (b) => ({ leafId: b.id, moved: true }),
    summaryPreview: () => ({
      previewId: 'preview-1',
      summary: 'A summary.',
      details: { readFiles: [], modifiedFiles: [] },
      entryCount: 1,
    }),
    moveWithSummary: (b) => ({ leafId: b.id, moved: true }),
    cancelPreview: () => ({}),
    compactPreview: () => ({
      previewId: 'compact-1',
      summary: 'A compaction.',
      details: { readFiles: [], modifiedFiles: [] },
      tokensBefore: 1000,
      keptTokens: 200,
      summarizedEntries: 3,
      keptEntries: 2,
    }),
    compactCommit: () => ({ entryId: 'compaction-1' }),
    fork: () => ({ fileName: 'forked.jsonl', text: '' }),
    clone: () => ({ fileName: 'cloned.jsonl' }),
    setLabel: (b) => ({ label: b.label ?? null }),
    rename: (b) => ({ name: b.name || null }),
    copyText: () => ({ copied: 1 }),
    continueInPi: (b): Replies['continueInPi'] => (b.id ? { leafId: b.id, moved: true } : {}),
    setupSummaryModel: () => ({}),
    getChanges: (b) => ({ entryId: b.id, changes: [] }),
    openChange: () => ({}),
    branchFiles: () => ({ entries: 0, files: [] }),
    compare: () => ({}),
    exportBranch: () => ({ entries: 1, chars: 1 }),
    setHidden: (b) => ({ hidden: b.hidden ? [b.id] : [] }),
    openLink: () => ({}),
    codeState: () => ({ how: 'none', files: [], notes: [] }),
    openCodeDiff: () => ({ files: 0 }),
    restoreCode: () => ({ restored: false }),
    undoRestore: () => ({}),
    askFrom: (b) => ({ answerId: b.id, leafId: b.id, via: 'headless', pid: 1 }),
    cancelAsk: () => ({ cancelling: false }),
    listModels: () => ({ models: [] }),
    tryVariants: () => ({ started: true }),
  };
}

/**
 * Waits until the app is idle: no timer, animation frame or host request of its own pending (the test
 * build's window.__piTree.idle()). Debounced work (find, entry details, saving the UI state) is done then.
 */
export async function idle(page: Page): Promise<void> {
  await page.waitForFunction(() => !!(window as unknown as { __piTree?: unknown }).__piTree);
  await page.evaluate(() => (window as unknown as { __piTree: { idle(): Promise<void> } }).__piTree.idle());
}
