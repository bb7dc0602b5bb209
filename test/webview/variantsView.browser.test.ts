// The variants view in the built webview (headless Chromium, a scripted host, the real CSP): the
// variants side by side as columns that scroll sideways when there are many, each column's model,
// phase, streamed answer, files with +/- counts, stats and check; session text stays text (a hostile
// answer, a file name or check output with markup never becomes markup); the buttons reachable by the
// keyboard and named for screen readers; every request names a variant by its place (never a path),
// and passes the host's validation. Also the tree's Shift+V and the details pane's Variants… button.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { validateVariantsMessage, type VariantCard, type VariantsWebviewMessage } from '../../src/variantsProtocol';
import { until } from '../../scripts/lib/until';
import { idle, INIT, launch, meta, serve, ScriptedHost, type Served } from './helpers/browser';
import { smallSession } from './fixtures';

let browser: Browser;
let view: Served;
let tree: Served;
before(async () => {
  view = await serve({ view: 'variants' });
  tree = await serve();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await view?.close();
  await tree?.close();
});

const HOSTILE = 'Done. <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';

function card(index: number, over: Partial<VariantCard> = {}): VariantCard {
  return {
    index,
    model: `local/model-${index}`,
    phase: 'queued',
    answer: '',
    files: [],
    check: null,
    made: false,
    ...over,
  };
}

class VariantsHost {
  readonly received: VariantsWebviewMessage[] = [];
  readonly pageErrors: string[] = [];
  page!: Page;
  cards: VariantCard[] = [];
  /** How many variants the host says Cancel all cancels. */
  cancelling = 2;
  async open(width = 1200): Promise<void> {
    const ctx = await browser.newContext({ viewport: { width, height: 800 } });
    this.page = await ctx.newPage();
    await this.page.exposeBinding('__toHost', (_s, m: VariantsWebviewMessage) => void this.onMessage(m));
    await this.page.addInitScript(INIT);
    this.page.on('pageerror', (e) => this.pageErrors.push(String(e)));
    await this.page.goto(view.url);
    await idle(this.page);
  }
  post(m: unknown): Promise<void> {
    return this.page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(m));
  }
  async onMessage(m: VariantsWebviewMessage): Promise<void> {
    // What the host's gate would do: everything the view sends passes validation.
    assert.equal(validateVariantsMessage(m).ok, true, JSON.stringify(m));
    this.received.push(m);
    if (m.type === 'ready')
      return this.post({
        type: 'variantsView',
        info: { prompt: 'make <b>it</b> fast', node: 'the answer “ok”', check: 'npm test' },
        variants: this.cards,
      });
    const data =
      m.body.kind === 'adopt'
        ? { adopted: true }
        : m.body.kind === 'cancel'
          ? { cancelling: true }
          : m.body.kind === 'cancelAll'
            ? { cancelling: this.cancelling }
            : m.body.kind === 'diffAll'
              ? { files: 2 }
              : {};
    await this.post({ type: 'reply', seq: m.seq, ok: true, data });
  }
  requests() {
    return this.received
      .filter((m) => m.type === 'request')
      .map((m) => (m as Extract<VariantsWebviewMessage, { type: 'request' }>).body);
  }
  waitRequests(n: number): Promise<unknown> {
    return until(() => this.requests().length >= n, 30_000, `${n} requests from the view`);
  }
}

test('the variants view: columns side by side with model, phase, streamed answer as text, files, stats and check; requests by place', async () => {
  const h = new VariantsHost();
  h.cards = [
    card(0, { phase: 'running', made: true }),
    card(1, {
      phase: 'done',
      made: true,
      answer: HOSTILE,
      files: [
        { name: 'src/a.ts', status: 'changed', added: 12, removed: 3 },
        { name: '<img src=x onerror="window.__pwned=3">.ts', status: 'created', added: 1, removed: 0 },
      ],
      tokens: { input: 1200, output: 300, total: 1500 },
      cost: 0.0123,
      ms: 4200,
      check: { exitCode: 1, output: 'FAIL <script>window.__pwned=4</script>', ms: 900 },
    }),
    card(2, { phase: 'failed', error: 'pi stopped: <b>boom</b>' }),
  ];
  await h.open();
  const page = h.page;
  const cols = page.locator('.var-col');
  await cols.nth(2).waitFor();
  assert.equal(await cols.count(), 3);
  assert.equal(await page.locator('[role="list"][aria-label="Variants side by side"] > [role="listitem"]').count(), 3);
  // Side by side: each column to the right of the one before.
  const boxes = await Promise.all([0, 1, 2].map((i) => cols.nth(i).boundingBox()));
  assert.ok(
    boxes[0]!.x < boxes[1]!.x && boxes[1]!.x < boxes[2]!.x && Math.abs(boxes[0]!.y - boxes[1]!.y) < 2,
    JSON.stringify(boxes),
  );
  assert.match((await page.locator('.var-prompt').textContent())!, /make <b>it<\/b> fast/, 'the prompt as text');
  assert.match((await cols.nth(1).locator('.var-title').textContent())!, /Variant 2.*local\/model-1/);
  assert.match((await cols.nth(1).locator('.var-phase').textContent())!, /Done/);
  assert.match((await cols.nth(2).locator('.var-error').textContent())!, /<b>boom<\/b>/);
  // Session text stays text: the answer (Markdown without HTML), a file name, the check's output.
  assert.match((await cols.nth(1).locator('.var-answer').textContent())!, /<script>window.__pwned=1<\/script>/);
  assert.equal(await page.locator('.var-answer script, .var-answer img, .var-files img, .var-check script').count(), 0);
  assert.match((await cols.nth(1).locator('.var-check-head').textContent())!, /exit code 1/);
  assert.match((await cols.nth(1).locator('.var-check-out').textContent())!, /FAIL <script>/);
  assert.match((await cols.nth(1).locator('.var-stats').textContent())!, /1,500.*\$0\.0123.*4\.2 s/s);
  assert.match((await cols.nth(1).locator('.var-file').first().textContent())!, /src\/a\.ts \+12 −3/);
  // The streamed answer appends as text while the variant runs, then the whole answer replaces it.
  await h.post({ type: 'variantDelta', index: 0, delta: 'Hello <i>there</i>' });
  await h.post({ type: 'variantDelta', index: 0, delta: ' and more' });
  await page.waitForFunction(
    () => document.querySelector('.var-col[data-index="0"] .var-answer')?.textContent === 'Hello <i>there</i> and more',
  );
  assert.equal(await cols.nth(0).locator('.var-answer i').count(), 0);
  assert.equal(await cols.nth(0).locator('vscode-progress-bar').count(), 1, 'a running variant shows progress');
  await h.post({
    type: 'variant',
    variant: card(0, { phase: 'done', made: true, answer: 'Final **answer**', files: [] }),
  });
  await page.waitForFunction(
    () => document.querySelector('.var-col[data-index="0"]')?.getAttribute('data-phase') === 'done',
  );
  assert.equal(
    await cols.nth(0).locator('.var-answer strong').textContent(),
    'answer',
    'the ended answer as sanitized Markdown',
  );
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.match((await page.locator('[role="status"]').textContent()) ?? '', /Variant 1: Done/);

  // Buttons: a click asks by the variant's place and the file's place.
  await cols.nth(1).locator('.var-file').first().click();
  await cols.nth(1).locator('[data-action="diffAll"]').click();
  await cols.nth(1).locator('[data-action="adopt"]').click();
  await h.waitRequests(3);
  assert.deepEqual(h.requests(), [
    { kind: 'diffFile', index: 1, file: 0 },
    { kind: 'diffAll', index: 1 },
    { kind: 'adopt', index: 1 },
  ]);
  assert.ok(!JSON.stringify(h.received).includes('/'), 'no path in anything the view sent');
  assert.deepEqual(h.pageErrors, []);
  await page.context().close();
});

test('keyboard: every button reachable with Tab, named; the answer and the check output focusable; Cancel and Cancel all while running', async () => {
  const h = new VariantsHost();
  h.cards = [
    card(0, { phase: 'running', made: true }),
    card(1, {
      phase: 'done',
      made: true,
      answer: 'ok',
      files: [{ name: 'a.ts', status: 'changed', added: 1, removed: 1 }],
      check: { exitCode: 0, output: 'pass', ms: 10 },
    }),
  ];
  await h.open();
  const page = h.page;
  await page.locator('.var-col').nth(1).waitFor();
  const seen: string[] = [];
  await page.locator('body').focus();
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    seen.push(
      await page.evaluate(() => {
        const a = document.activeElement as HTMLElement | null;
        return a?.dataset.action ?? a?.getAttribute('aria-label') ?? a?.tagName ?? '';
      }),
    );
  }
  for (const want of [
    'cancelAll',
    'Answer of variant 1',
    'cancel',
    'openSession',
    'Answer of variant 2',
    'file-0',
    'diffAll',
    'Output of the check of variant 2',
    'adopt',
    'discard',
  ]) {
    assert.ok(seen.includes(want), `${want} is reached by Tab: ${seen.join(', ')}`);
  }
  // Keyboard activation: Enter on a focused UI-kit button.
  await page.locator('.var-col').nth(0).locator('[data-action="cancel"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-action="cancelAll"]').focus();
  await page.keyboard.press('Enter');
  await h.waitRequests(2);
  assert.deepEqual(h.requests(), [{ kind: 'cancel', index: 0 }, { kind: 'cancelAll' }]);
  // ARIA: each column a list item labelled by its heading; the toolbar and regions named.
  const col = page.locator('.var-col').nth(1);
  const labelledBy = await col.getAttribute('aria-labelledby');
  assert.match((await page.locator(`#${labelledBy}`).textContent())!, /Variant 2/);
  assert.equal(await col.locator('[role="toolbar"]').getAttribute('aria-label'), 'Variant 2 actions');
  assert.match((await col.locator('.var-file').getAttribute('aria-label'))!, /a\.ts, changed, 1 line added, 1 removed/);
  await page.context().close();
});

test('one variant, one file, one line: the counts read in the singular', async () => {
  const h = new VariantsHost();
  h.cancelling = 1;
  h.cards = [
    card(0, { phase: 'running', made: true, files: [{ name: 'a.ts', status: 'created', added: 1, removed: 0 }] }),
  ];
  await h.open();
  const page = h.page;
  await page.locator('.var-col').first().waitFor();
  assert.equal(await page.locator('.var-header .title').textContent(), '1 variant');
  assert.match(
    (await page.locator('.var-file').getAttribute('aria-label'))!,
    /a\.ts, created, 1 line added, 0 removed/,
  );
  assert.equal((await page.locator('[data-action="diffAll"]').textContent())?.trim(), 'Open as multi-diff');
  await page.locator('[data-action="cancelAll"]').click();
  await until(
    async () => (await page.locator('[role="status"]').textContent()) === 'Cancelling 1 variant',
    30_000,
    'the live region',
  );
  await page.context().close();
});

test('many variants scroll sideways', async () => {
  const h = new VariantsHost();
  h.cards = Array.from({ length: 8 }, (_x, i) => card(i, { phase: 'done', made: true, answer: `answer ${i}` }));
  await h.open(900);
  const page = h.page;
  await page.locator('.var-col').nth(7).waitFor();
  const { scroll, client } = await page.evaluate(() => {
    const el = document.querySelector('.var-columns')!;
    return { scroll: el.scrollWidth, client: el.clientWidth };
  });
  assert.ok(scroll > client, `the row of columns scrolls sideways (${scroll} > ${client})`);
  await page.context().close();
});

test("the tree: Shift+V and the details pane's Variants… button ask the host by entry id, the box's text offered", async () => {
  const s = smallSession();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const host = await ScriptedHost.open(ctx, tree.url, { meta: meta({}), nodes: s.nodes, leafId: s.leafId });
  await host.waitFor((m) => m.type === 'selected', 60_000);
  await idle(host.page);
  const page = host.page;
  await host.post({ type: 'invoke', action: 'select', id: 'a3000000' });
  await idle(page);
  await page.locator('[role="tree"]').focus();
  let req = host.nextRequest('tryVariants');
  await page.keyboard.press('Shift+V');
  assert.deepEqual(await req, { kind: 'tryVariants', id: 'a3000000' });
  await page.locator('.details textarea[data-field="ask"]').fill('try <b>this</b>');
  req = host.nextRequest('tryVariants');
  await page.locator('.details [data-action="ask-variants"]').click();
  assert.deepEqual(await req, { kind: 'tryVariants', id: 'a3000000', prompt: 'try <b>this</b>' });
  await page.waitForFunction(
    () => (document.querySelector('.details textarea[data-field="ask"]') as HTMLTextAreaElement).value === '',
  );
  await ctx.close();
});
