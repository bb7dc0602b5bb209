// #15 in the built webview (headless Chromium, scripted host): code changes in the details pane (a click
// asks the host for the diff by entry id and position), files changed on a branch, "Compare with…" and
// "Compare with current leaf", export, the hidden mark, folding off the current path, family link nodes
// (drawn under the entry they part at; Enter opens them), and the compare view itself.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  validateCompareMessage,
  type CompareRow,
  type CompareView,
  type CompareWebviewMessage,
} from '../../src/compareProtocol';
import type { FamilyLink, NodeView } from '../../src/protocol';
import { validateWebviewMessage } from '../../src/protocolValidation';
import { idle, INIT, launch, meta, serve, ScriptedHost, type Served } from './helpers/browser';
import { smallSession } from './fixtures';

let browser: Browser;
let srv: Served;
let cmp: Served;
before(async () => {
  srv = await serve();
  cmp = await serve({ view: 'compare' });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
  await cmp?.close();
});

const stats = (page: Page) =>
  page.evaluate(() =>
    (
      window as unknown as { __piTree: { stats(): { selected?: string; items: number; visible: number } } }
    ).__piTree.stats(),
  );

async function open(over: Parameters<typeof meta>[0] = {}, edit?: (nodes: NodeView[]) => void): Promise<ScriptedHost> {
  const s = smallSession();
  edit?.(s.nodes);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const host = await ScriptedHost.open(ctx, srv.url, { meta: meta(over), nodes: s.nodes, leafId: s.leafId });
  await host.waitFor((m) => m.type === 'selected', 60_000);
  await idle(host.page);
  return host;
}

async function selectId(host: ScriptedHost, id: string): Promise<void> {
  await host.post({ type: 'invoke', action: 'select', id });
  await idle(host.page);
  assert.equal((await stats(host.page)).selected, id);
  await host.page.locator('[role="tree"]').focus();
}

async function close(host: ScriptedHost): Promise<void> {
  assert.deepEqual(host.pageErrors, []);
  assert.deepEqual(
    await host.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    [],
  );
  for (const m of host.received) assert.equal(validateWebviewMessage(m).ok, true, JSON.stringify(m));
  await host.page.context().close();
}

test('the details pane lists an entry’s changes; a click asks for its diff by id and position; files on the branch', async () => {
  const host = await open({}, (nodes) => {
    const a3 = nodes.find((n) => n.id === 'a3000000')!;
    a3.changed = ['src/parser.ts', 'notes.md'];
  });
  const page = host.page;
  host.handlers.getChanges = (b) => ({
    entryId: b.id,
    changes: [
      { index: 0, tool: 'edit', path: 'src/parser.ts', added: 3, removed: 1, diff: true },
      { index: 1, tool: 'write', path: 'notes.md', added: 10, removed: 0, diff: true, failed: true },
      { index: 2, tool: 'bash', op: 'delete', path: 'tmp.log', added: 0, removed: 0, diff: false },
    ],
  });
  await selectId(host, 'a3000000');
  // the changed node carries the mark in the graph and the outline
  await page.locator('svg.scene g.node.changed[data-entry-id="a3000000"] .changed-mark').waitFor();
  assert.equal(await page.locator('[role="treeitem"].changed[data-entry-id="a3000000"]').count(), 1);
  const list = page.locator('.details .changes .change-list li');
  await list.first().waitFor();
  assert.deepEqual(await list.allTextContents(), [
    'edit src/parser.ts+3 −1',
    'write notes.md+10 −0failed',
    'bash delete tmp.log',
  ]);
  assert.equal(await page.locator('.details .changes button.change-open').count(), 2, 'no diff for a bash change');
  const req = host.nextRequest('openChange');
  await page.locator('.details .changes button.change-open[data-change="1"]').click();
  assert.deepEqual(await req, { kind: 'openChange', id: 'a3000000', index: 1 });

  // Files changed on this branch (E): a click selects the last entry that changed the file
  host.handlers.branchFiles = () => ({
    entries: 2,
    files: [
      {
        path: 'src/parser.ts',
        changes: 2,
        failed: 0,
        tools: ['edit'],
        added: 4,
        removed: 2,
        firstEntryId: 'a2000000',
        lastEntryId: 'a3000000',
      },
    ],
  });
  await selectId(host, 'a4000000');
  const bf = host.nextRequest('branchFiles');
  await page.keyboard.press('e');
  assert.deepEqual(await bf, { kind: 'branchFiles', id: 'a4000000' });
  const file = page.locator('.details .branch-files button.file-open');
  await file.waitFor();
  assert.equal(await file.textContent(), 'src/parser.ts');
  await file.click();
  await idle(page);
  assert.equal((await stats(page)).selected, 'a3000000');
  // Escape leaves the files view for the entry
  await selectId(host, 'a4000000');
  await page.keyboard.press('e');
  await file.waitFor();
  await page.keyboard.press('Escape');
  await page.locator('.details .branch-files').waitFor({ state: 'detached' });
  await close(host);
});

test('Compare with…: C marks, C on another entry compares; Shift+C compares with the leaf; Escape cancels; export', async () => {
  const host = await open();
  const page = host.page;
  await selectId(host, 'a5000000');
  await page.keyboard.press('c');
  await selectId(host, 'a3000000');
  let req: Promise<unknown> = host.nextRequest('compare');
  await page.keyboard.press('c');
  assert.deepEqual(await req, { kind: 'compare', id: 'a5000000', other: 'a3000000' });
  // Escape drops the mark: the next C marks again instead of comparing
  await page.keyboard.press('c');
  await page.keyboard.press('Escape');
  await selectId(host, 'u4000000');
  await page.keyboard.press('c');
  await idle(page);
  assert.equal(host.requestsOf('compare').length, 1);
  req = host.nextRequest('compare');
  await page.keyboard.press('Shift+C');
  assert.deepEqual(await req, { kind: 'compare', id: 'u4000000', other: null });
  // from the details pane
  req = host.nextRequest('compare');
  await page.locator('.details [data-action="compare-leaf"]').click();
  assert.deepEqual(await req, { kind: 'compare', id: 'u4000000', other: null });
  await page.locator('[role="tree"]').focus();
  req = host.nextRequest('exportBranch');
  await page.keyboard.press('Shift+E');
  assert.deepEqual(await req, { kind: 'exportBranch', id: 'u4000000', to: 'editor' });
  req = host.nextRequest('exportBranch');
  await page.locator('.details [data-action="copy-branch"]').click();
  assert.deepEqual(await req, { kind: 'exportBranch', id: 'u4000000', to: 'clipboard' });
  await close(host);
});

test('code at a node (#32): the checkpoint marks, the files that differ from now, Compare with now and Restore code… ask the host by id', async () => {
  const host = await open();
  const page = host.page;
  await host.delta({ type: 'codeMarks', ids: ['a1000000'] });
  await page.locator('svg.scene g.node[data-entry-id="a1000000"] .code-mark').waitFor();
  assert.equal(await page.locator('[role="treeitem"].checkpoint[data-entry-id="a1000000"]').count(), 1);
  host.handlers.codeState = () => ({
    how: 'snapshot',
    files: [
      { path: 'src/reader.ts', status: 'modified' },
      { path: 'a.txt', status: 'added' },
      { path: 'old.txt', status: 'deleted' },
      { path: 'out.bin', status: 'unknown' },
    ],
    notes: [],
  });
  await selectId(host, 'a1000000');
  // (the leaf, selected before, may have asked too: the marks came while it was shown)
  await host.waitFor((m) => m.type === 'request' && m.body.kind === 'codeState' && m.body.id === 'a1000000');
  const items = page.locator('.details .code-state .change-list li');
  await items.first().waitFor();
  assert.deepEqual(await items.allTextContents(), ['src/reader.ts', 'a.txt', 'old.txt', 'out.bin']);
  assert.deepEqual(await items.locator('.codicon').evaluateAll((els) => els.map((e) => e.className)), [
    'codicon codicon-diff-modified',
    'codicon codicon-diff-added',
    'codicon codicon-diff-removed',
    'codicon codicon-question',
  ]);
  assert.deepEqual(
    await items.evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('title')} | ${e.querySelector('[role="img"]')?.getAttribute('aria-label')}`),
    ),
    [
      'src/reader.ts: changed since this node | changed since this node',
      'a.txt: created since this node | created since this node',
      'old.txt: deleted since this node | deleted since this node',
      'out.bin: not known at this node | not known at this node',
    ],
  );
  assert.match(
    (await page.locator('.details .code-state p.muted').first().textContent()) ?? '',
    /^3 files differ from now, 1 not known \(from a checkpoint\)\.$/,
  );
  // both buttons draw their icon (a codicon of the page in the button's slot)
  for (const [action, icon] of [
    ['code-diff', 'diff-multiple'],
    ['restore-code', 'history'],
  ]) {
    const b = page.locator(`.details .code-state [data-action="${action}"]`);
    await page.waitForFunction(
      ([a, i]) =>
        !!document
          .querySelector(`.details .code-state [data-action="${a}"]`)
          ?.querySelector(`:scope > .codicon-${i}[slot="content-before"]`),
      [action, icon],
    );
    const req = host.nextRequest(action === 'code-diff' ? 'openCodeDiff' : 'restoreCode');
    await b.click();
    assert.deepEqual(await req, { kind: action === 'code-diff' ? 'openCodeDiff' : 'restoreCode', id: 'a1000000' });
  }
  // another node: the same buttons (kept, not made again), asking for that node
  await page
    .locator('.details .code-state [data-action="restore-code"]')
    .evaluate((b) => ((b as unknown as { __kept: boolean }).__kept = true));
  await selectId(host, 'a4000000');
  await page.locator('.details .code-state p.muted', { hasText: /^3 files differ/ }).waitFor();
  assert.equal(
    await page
      .locator('.details .code-state [data-action="restore-code"]')
      .evaluate((b) => (b as unknown as { __kept?: boolean }).__kept),
    true,
  );
  const again = host.nextRequest('restoreCode');
  await page.locator('.details .code-state [data-action="restore-code"]').click();
  assert.deepEqual(await again, { kind: 'restoreCode', id: 'a4000000' });
  // the same files as now: no buttons, it says so
  host.handlers.codeState = () => ({ how: 'snapshot', files: [], notes: [] });
  await selectId(host, 'u2000000');
  await page
    .locator('.details .code-state p.muted', { hasText: 'The files now are as they were here (from a checkpoint).' })
    .waitFor();
  assert.equal(await page.locator('.details .code-state [data-action="restore-code"]').count(), 0);
  await close(host);
});

test('a branch marked hidden leaves the view (kept by the host), the header toggles it back; folding off the current path', async () => {
  const host = await open();
  const page = host.page;
  const drawn = (id: string) =>
    page.locator(`svg.scene g.node[data-entry-id="${id}"], [role="treeitem"][data-entry-id="${id}"]`);
  await selectId(host, 'u4000000');
  const req = host.nextRequest('setHidden');
  await page.keyboard.press('h');
  assert.deepEqual(await req, { kind: 'setHidden', id: 'u4000000', hidden: true });
  await idle(page);
  assert.equal(await drawn('u4000000').count(), 0);
  assert.equal(await drawn('x1000000').count(), 0);
  const badge = page.locator('button.badge.hidden-branches');
  assert.equal(await badge.textContent(), '1 hidden branch');
  await badge.click();
  await idle(page);
  assert.ok((await drawn('u4000000').count()) > 0, 'shown on request');
  await page.keyboard.press('Shift+H');
  await idle(page);
  assert.equal(await drawn('u4000000').count(), 0);
  // the current path cannot be hidden
  await selectId(host, 'u2000000');
  await page.keyboard.press('h');
  await idle(page);
  assert.equal(host.requestsOf('setHidden').length, 1);
  await host.page.context().close();

  // A session that opens with a hidden mark (the host's meta) opens without that branch.
  const again = await open({ hidden: ['u4000000'] });
  assert.equal(await again.page.locator('[role="treeitem"][data-entry-id="a5000000"]').count(), 0);
  await close(again);

  // Fold everything off the current path: the dead end becomes one node; Alt+Z unfolds.
  const f = await open();
  await f.page.locator('[role="tree"]').focus();
  await f.page.keyboard.press('Shift+Z');
  await idle(f.page);
  const folded = f.page.locator('svg.scene g.node.folded');
  assert.equal(await folded.count(), 1);
  assert.equal(await folded.getAttribute('data-entry-id'), 'u4000000');
  assert.equal(await f.page.locator('[role="treeitem"][data-entry-id="x1000000"]').count(), 0);
  await f.page.keyboard.press('Alt+Z');
  await idle(f.page);
  assert.equal(await f.page.locator('svg.scene g.node.folded').count(), 0);
  // Z folds whatever is below the selected node (not only branch points)
  await selectId(f, 'a3000000');
  await f.page.keyboard.press('z');
  await idle(f.page);
  assert.equal(await f.page.locator('svg.scene g.node.folded[data-entry-id="a3000000"]').count(), 1);
  await close(f);
});

test('family links: a fork is drawn under the entry it came from, the parent as a root; Enter or a double click opens it', async () => {
  const host = await open();
  const page = host.page;
  const links: FamilyLink[] = [
    {
      token: 'f00d01',
      relation: 'child',
      at: 'a1000000',
      title: 'Try the other parser',
      fileName: 'fork.jsonl',
      messages: 12,
      bytes: 40_960,
      created: Date.UTC(2026, 10, 22),
    },
    {
      token: 'f00d02',
      relation: 'parent',
      at: null,
      title: 'Where it started',
      fileName: 'parent.jsonl',
      messages: 30,
      bytes: 3_000_000,
      created: Date.UTC(2026, 10, 19),
    },
  ];
  await host.delta({ type: 'family', links });
  await idle(page);
  const fork = page.locator('svg.scene g.node.k-link[data-entry-id="link:f00d01"]');
  await fork.waitFor();
  assert.match((await fork.textContent()) ?? '', /fork: Try the other.*fork · 12 messages · 40 KB/);
  assert.match(
    (await page.locator('[role="treeitem"][data-entry-id="link:f00d01"]').textContent()) ?? '',
    /fork: Try the other parser/,
  );
  assert.equal(await page.locator('[role="treeitem"][data-entry-id="link:f00d02"]').count(), 1);
  // its menu is not an entry's
  assert.equal(JSON.parse((await fork.getAttribute('data-vscode-context'))!).webviewSection, 'link');
  await selectId(host, 'link:f00d01');
  await page.locator('.details [data-action="open-link"]').waitFor();
  assert.equal(
    host.requestsOf('getEntry').filter((r) => r.id.startsWith('link:')).length,
    0,
    'no entry is fetched for a link',
  );
  let req: Promise<unknown> = host.nextRequest('openLink');
  await page.keyboard.press('Enter');
  assert.deepEqual(await req, { kind: 'openLink', token: 'f00d01' });
  // entry actions do not apply to it
  await page.keyboard.press('F2');
  await page.keyboard.press('f');
  await idle(page);
  assert.equal(host.requestsOf('fork').length + host.requestsOf('setLabel').length, 0);
  req = host.nextRequest('openLink');
  await page.locator('[role="treeitem"][data-entry-id="link:f00d02"]').dblclick();
  assert.deepEqual(await req, { kind: 'openLink', token: 'f00d02' });
  // a snapshot drops them until the host sends them again; a family without the fork drops its node
  await host.delta({ type: 'family', links: [links[1]] });
  await idle(page);
  assert.equal(await page.locator('[data-entry-id="link:f00d01"]').count(), 0);
  await close(host);
});

// ───────────── the compare view ─────────────

function turn(side: string, k: number, user: string | undefined, extra = 0) {
  return {
    index: k,
    ...(user !== undefined ? { userId: `${side}u${k}`.padEnd(8, '0'), user } : {}),
    items: [
      {
        id: `${side}a${k}`.padEnd(8, '0'),
        type: 'message',
        role: 'assistant',
        text: `assistant: ${side} answers ${k}`,
        calls: k === 0 ? ['[edit: src/a.ts]'] : undefined,
      },
      {
        id: `${side}r${k}`.padEnd(8, '0'),
        type: 'message',
        role: 'toolResult',
        text: '[edit: src/a.ts]',
        ...(side === 'b' && k === 1 ? { error: true } : {}),
      },
    ],
    entries: 3 + extra,
    more: extra,
    startTime: Date.UTC(2026, 10, 20, 10, k),
    endTime: Date.UTC(2026, 10, 20, 10, k, 30),
  };
}

class CompareHost {
  readonly received: CompareWebviewMessage[] = [];
  readonly pageErrors: string[] = [];
  page!: Page;
  rows: CompareRow[] = [];
  view!: CompareView;
  async open(): Promise<void> {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 700 } });
    this.page = await ctx.newPage();
    await this.page.exposeBinding('__toHost', (_s, m: CompareWebviewMessage) => void this.onMessage(m));
    await this.page.addInitScript(INIT);
    this.page.on('pageerror', (e) => this.pageErrors.push(String(e)));
    await this.page.goto(cmp.url);
  }
  post(m: unknown): Promise<void> {
    return this.page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(m));
  }
  async onMessage(m: CompareWebviewMessage): Promise<void> {
    this.received.push(m);
    if (m.type === 'ready') return this.post({ type: 'compareView', view: this.view, rows: this.rows.slice(0, 30) });
    const b = m.body;
    const data =
      b.kind === 'rows'
        ? this.rows.slice(b.from, b.from + b.count)
        : b.kind === 'entryText'
          ? { text: `Full text of ${b.id}\n<b>not bold</b>`, truncated: false }
          : {};
    await this.post({ type: 'reply', seq: m.seq, ok: true, data });
  }
  requests(kind: string) {
    return this.received
      .filter((m) => m.type === 'request' && m.body.kind === kind)
      .map((m) => (m as Extract<CompareWebviewMessage, { type: 'request' }>).body);
  }
}

test('the compare view: ancestor, both sides’ facts, totals when summed, aligned rows a page at a time, expand, diff, reveal', async () => {
  const h = new CompareHost();
  const total = 75;
  h.rows = Array.from({ length: total }, (_, k) => ({
    index: k,
    ...(k < 60
      ? { a: turn('a', k, k === 0 ? undefined : `question ${k} <img src=x onerror="window.__pwned=1">`) }
      : {}),
    ...(k < 75 ? { b: turn('b', k, k === 0 ? undefined : `question ${k}`, k === 3 ? 100 : 0) } : {}),
  }));
  h.view = {
    ancestor: { id: 'anc00001', text: 'assistant: the plan', time: Date.UTC(2026, 10, 20, 9), common: 42 },
    a: {
      title: 'Stream the reader',
      fileName: 's.jsonl',
      nodeId: 'aa000001',
      nodeText: 'assistant: done A',
      entries: 180,
    },
    b: {
      title: 'Stream the reader',
      fileName: 's.jsonl',
      nodeId: 'bb000001',
      nodeText: 'assistant: done B',
      entries: 225,
    },
    rows: total,
  };
  await h.open();
  const page = h.page;
  await page.locator('.cmp-row').first().waitFor();
  await idle(page);
  assert.match(
    (await page.locator('.cmp-ancestor').textContent()) ?? '',
    /Common ancestor: anc00001 assistant: the plan · 42 shared entries/,
  );
  assert.equal(await page.locator('.cmp-card.side-a h2').textContent(), 'A Stream the reader');
  // totals arrive after the first screen
  assert.match((await page.locator('.cmp-card.side-b .cmp-totals').textContent()) ?? '', /being summed/);
  const totals = {
    entries: 225,
    messages: 200,
    turns: 74,
    userMessages: 74,
    assistantMessages: 80,
    toolCalls: 50,
    toolResults: 46,
    tokens: { input: 123456, output: 789, cacheRead: 0, cacheWrite: 0, total: 124245 },
    cost: 1.5,
    models: [{ provider: 'anthropic', model: 'claude-x', messages: 80 }],
    wallMs: 3_600_000,
  };
  await h.post({ type: 'compareSide', side: 'b', totals, files: ['src/a.ts', 'src/b.ts'] });
  const dl = page.locator('.cmp-card.side-b dl.cmp-totals');
  await dl.waitFor();
  const text = (await dl.textContent()) ?? '';
  for (const part of ['123,456 in · 789 out', '$1.5000', 'claude-x (80)', '60 min', '74'])
    assert.ok(text.includes(part), `${part} in ${text}`);
  assert.equal(await page.locator('.cmp-card.side-b .cmp-files li').count(), 2);
  // first page, then the rest as the list scrolls
  assert.equal(await page.locator('.cmp-row').count(), 30);
  await page.locator('.cmp-more').scrollIntoViewIfNeeded();
  await page.locator('.cmp-row[data-row="69"]').waitFor();
  await page.locator('.cmp-more').scrollIntoViewIfNeeded();
  await page.locator('.cmp-row[data-row="74"]').waitFor();
  await idle(page);
  assert.deepEqual(
    h.requests('rows').map((b) => (b.kind === 'rows' ? b.from : -1)),
    [30, 70],
  );
  // B alone past A's end; the prelude row says so; the long turn says how many more entries it has
  assert.equal(await page.locator('.cmp-row[data-row="70"] .cmp-cell.side-a.empty').count(), 1);
  assert.match(
    (await page.locator('.cmp-row[data-row="0"] .cmp-cell.side-a').textContent()) ?? '',
    /before the first message/,
  );
  assert.match(
    (await page.locator('.cmp-row[data-row="3"] .cmp-cell.side-b').textContent()) ?? '',
    /… 100 more entries in this turn/,
  );
  // hostile text stays text
  assert.match(
    (await page.locator('.cmp-row[data-row="1"] .cmp-cell.side-a .k-user .cmp-line').textContent()) ?? '',
    /<img src=x/,
  );
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  // expand an entry (its full text from the host), open a row's diff, reveal an entry in its tree
  await page.locator('.cmp-row[data-row="2"] .cmp-cell.side-b .k-assistant .cmp-line').click();
  const full = page.locator('.cmp-row[data-row="2"] .cmp-cell.side-b pre.cmp-full');
  await full.waitFor();
  assert.equal(await full.textContent(), 'Full text of ba200000\n<b>not bold</b>');
  await page.locator('.cmp-row[data-row="2"] [data-action="diff-row"]').click();
  await page.locator('.cmp-row[data-row="2"] .cmp-cell.side-a .k-toolResult .cmp-reveal').click();
  await page.locator('[data-action="diff-sides"]').click();
  await idle(page);
  assert.deepEqual(
    h.received.filter((m) => m.type === 'request' && m.body.kind !== 'rows').map((m) => (m as { body: unknown }).body),
    [
      { kind: 'entryText', side: 'b', id: 'ba200000' },
      { kind: 'diffRow', row: 2 },
      { kind: 'reveal', side: 'a', id: 'ar200000' },
      { kind: 'diffSides' },
    ],
  );
  assert.equal(
    await page.locator('.cmp-row[data-row="65"] [data-action="diff-row"]').count(),
    0,
    'one side only: nothing to diff',
  );
  for (const m of h.received) assert.equal(validateCompareMessage(m).ok, true, JSON.stringify(m));
  assert.deepEqual(h.pageErrors, []);
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations), []);
  await page.context().close();
});
