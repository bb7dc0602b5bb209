// Try Variants from Here on the host (runs/variantsFlow.ts, variantRequests.ts, variantAdopt.ts),
// against the vscode mock with a fake VariantsService on a real session file: the questions (prompt,
// count or a multi-pick of pi's models, the check remembered), the run started with them, its progress
// notification whose Cancel cancels every variant, the state the view reads (outcomes, streamed answers,
// no paths in the cards), the refusals before anything runs, and the view's requests: cancel one or
// all, open the session, a file's diff and all files, adopt (preview, decision, write, Undo), discard.
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import type { RestorePlan, Resolution } from '../../../src/core/checkpoints/index.js';
import type { VariantOutcome, VariantsRun } from '../../../src/core/variants/index.js';
import { CodeDocuments } from '../../../src/host/checkpoints/codeDocuments.js';
import { handleVariantRequest } from '../../../src/host/runs/variantRequests.js';
import { tryVariantsFrom, type VariantsContext } from '../../../src/host/runs/variantsFlow.js';
import type { VariantsRunState } from '../../../src/host/runs/variantsRunState.js';
import type { AdoptSession, VariantsQuestion, VariantsService } from '../../../src/host/runs/variantsService.js';
import type { ModelList } from '../../../src/protocol.js';
import type { VariantsRequest } from '../../../src/variantsProtocol.js';
import { until } from '../../../scripts/lib/until.js';
import { SessionBuilder } from '../../support/sessionBuilder.js';
import { tempDir } from '../../support/tmp.js';
import { mock, pickInOrder, type ProgressShown, Uri } from '../../support/vscode/api.js';

/** A run the test drives: outcomes set by `report`, cancels recorded, `finish` settles done. */
class FakeRun implements VariantsRun {
  outcomes: VariantOutcome[];
  cancels: (number | undefined)[] = [];
  private settle!: (o: VariantOutcome[]) => void;
  private reject!: (e: Error) => void;
  readonly done = new Promise<VariantOutcome[]>((resolve, reject) => {
    this.settle = resolve;
    this.reject = reject;
  });
  constructor(
    readonly q: VariantsQuestion,
    size: number,
  ) {
    this.outcomes = Array.from({ length: size }, (_x, index) => ({ index, phase: 'queued' as const, check: null }));
  }
  cancel(index?: number): void {
    this.cancels.push(index);
  }
  report(o: Partial<VariantOutcome> & { index: number }): void {
    const next = { ...this.outcomes[o.index], ...o };
    this.outcomes[o.index] = next;
    this.q.onProgress?.({ kind: 'outcome', outcome: next });
  }
  delta(index: number, delta: string): void {
    this.q.onProgress?.({ kind: 'delta', index, delta });
  }
  finish(): void {
    this.settle(this.outcomes);
  }
  fail(e: Error): void {
    this.reject(e);
  }
}

class FakeVariants implements VariantsService {
  runs: FakeRun[] = [];
  discarded: unknown[] = [];
  adoptWrites: { resolutions: Map<string, Resolution>; confirmed: string[] }[] = [];
  undos: boolean[] = [];
  plan: RestorePlan | undefined;
  async start(q: VariantsQuestion): Promise<VariantsRun> {
    const run = new FakeRun(q, q.models?.length ?? q.count ?? 0);
    this.runs.push(run);
    return run;
  }
  async openAdopt(): Promise<AdoptSession> {
    const plan = this.plan!;
    return {
      plan,
      folder: '/nowhere',
      project: '/nowhere',
      write: async (resolutions, confirmed) => {
        this.adoptWrites.push({ resolutions, confirmed });
        return { written: plan.items.map((i) => i.path), skipped: [], merged: [], warnings: [] };
      },
      undo: async (force) => {
        this.undos.push(force);
        return { written: plan.items.map((i) => i.path), conflicts: [] };
      },
    };
  }
  async discard(o: unknown): Promise<void> {
    this.discarded.push(o);
  }
  /** The node's files: src/a.ts only. */
  asked: string[] = [];
  async fileAtNode(folder: string, path: string): Promise<Buffer | undefined> {
    this.asked.push(`${folder}:${path}`);
    return path === join('src', 'a.ts') ? Buffer.from('at the node\n') : undefined;
  }
}

const MODELS: ModelList = {
  models: [
    { provider: 'anthropic', id: 'claude-a', name: 'Claude A' },
    { provider: 'openai', id: 'gpt-b' },
    { provider: 'local', id: 'loop' },
  ],
  defaultModel: { provider: 'openai', id: 'gpt-b' },
};

async function setup(o: { readOnly?: string } = {}) {
  const cwd = tempDir('pi-tree-variants-cwd-');
  const b = new SessionBuilder({ cwd });
  b.user('first question');
  const a1 = b.assistant({ text: 'first answer' });
  const file = b.write(tempDir('pi-tree-variants-'));
  const session = await Session.open(file);
  if (o.readOnly) session.writeBlocked = o.readOnly;
  const variants = new FakeVariants();
  const shown: VariantsRunState[] = [];
  let lastCheck = '';
  const cx: VariantsContext = {
    session,
    file,
    actions: {
      need: (id: string) => {
        const rec = session.index.get(id);
        if (!rec) throw new Error(`no entry ${id}`);
        return rec;
      },
      checkWritable: () => {
        if (session.readOnly) throw new Error(`This session is read-only: ${session.readOnly}.`);
      },
    },
    ask: { models: async () => MODELS },
    variants,
    lastCheck: { get: () => lastCheck, set: async (v) => void (lastCheck = v) },
    describe: async (id) => `the entry ${id}`,
    show: (s) => void shown.push(s),
  };
  return { cx, cwd, a1, variants, shown, lastCheck: () => lastCheck };
}

/** Answers the input boxes in turn (undefined: dismissed); records what each offered. */
function inputs(...answers: (string | undefined)[]): void {
  let n = 0;
  mock.inputBox = () => answers[n++];
}

const nextProgress = () => new Promise<ProgressShown>((r) => mock.events.once('progress', r));

beforeEach(() => mock.reset());

describe('Try Variants from Here on the host', () => {
  it('asks the prompt, the count and the check (remembered), starts the run, opens the view; the notification counts and its Cancel cancels all', async () => {
    const s = await setup();
    inputs('make it faster', 'npm test');
    mock.quickPick = pickInOrder('3 variants');
    const progress = nextProgress();
    const started = await tryVariantsFrom(s.cx, s.a1);
    assert.ok(started);
    const run = s.variants.runs[0];
    assert.deepEqual(
      {
        file: run.q.file,
        entryId: run.q.entryId,
        prompt: run.q.prompt,
        count: run.q.count,
        models: run.q.models,
        check: run.q.check,
      },
      { file: s.cx.file, entryId: s.a1, prompt: 'make it faster', count: 3, models: undefined, check: 'npm test' },
    );
    assert.equal(s.lastCheck(), 'npm test', 'the check is remembered for the next run');
    assert.equal(s.shown.length, 1, 'the variants view opened on the run');
    const state = s.shown[0];
    assert.equal(state.info.prompt, 'make it faster');
    assert.equal(state.info.check, 'npm test');
    const p = await progress;
    assert.deepEqual(p.options, { location: 15, title: 'pi: 3 variants', cancellable: true });
    // Progress reaches the state the view reads: phases, streamed text, the whole answer, files.
    run.report({ index: 0, phase: 'running', variantId: 'v0', session: '/s/v0.jsonl', folder: '/f/v0' });
    run.delta(0, 'Hello ');
    run.delta(0, '<script>alert(1)</script>');
    assert.equal(state.card(0).answer, 'Hello <script>alert(1)</script>', 'the answer as it streamed, as text');
    run.report({
      index: 1,
      phase: 'done',
      variantId: 'v1',
      session: '/s/v1.jsonl',
      folder: '/f/v1',
      answer: 'All done.',
      files: [{ path: 'src/a.ts', status: 'changed', added: 3, removed: 1 }],
      check: { exitCode: 0, output: 'ok', ms: 12 },
    });
    const card = state.card(1);
    assert.equal(card.answer, 'All done.');
    assert.deepEqual(card.files, [{ name: 'src/a.ts', status: 'changed', added: 3, removed: 1 }]);
    assert.equal(card.made, true);
    assert.ok(
      !JSON.stringify(state.cards()).includes('/s/v1.jsonl') && !JSON.stringify(state.cards()).includes('/f/v1'),
      'no session or folder path reaches the view',
    );
    await until(
      () => p.reports.some((r) => r.message === '1 of 3 ended'),
      20_000,
      'the notification counts the ended variants',
    );
    p.cancel();
    assert.deepEqual(run.cancels, [undefined], "the notification's Cancel cancels every variant");
    run.finish();
    await started.finished;
    assert.ok(p.done);
  });

  it('a run refused after it started (its done rejects): every column not ended says why, the error is shown', async () => {
    const s = await setup();
    inputs('p', '');
    mock.quickPick = pickInOrder('2 variants');
    const started = (await tryVariantsFrom(s.cx, s.a1))!;
    const run = s.variants.runs[0];
    run.report({ index: 0, phase: 'done' });
    run.fail(new Error('pi has no model nope/x'));
    await started.finished;
    assert.deepEqual(
      started.state.cards().map((c) => [c.phase, c.error]),
      [
        ['done', undefined],
        ['failed', 'pi has no model nope/x'],
      ],
    );
    assert.ok(mock.shown.some((m) => m.level === 'error' && /variants run failed/.test(m.message)));
  });

  it("a multi-pick of pi's models: one variant per model; the last check is offered, an empty one means none", async () => {
    const s = await setup();
    await s.cx.lastCheck.set('make check');
    inputs('try', '');
    let offered: string[] = [];
    mock.quickPick = (items, q) => {
      if (/How many/.test(q.placeholder ?? ''))
        return (items as { label: string }[]).find((i) => i.label.includes("Pick pi's models"));
      offered = (items as { description?: string }[]).map((i) => i.description ?? '');
      return [(items as unknown[])[0], (items as unknown[])[2]];
    };
    const started = await tryVariantsFrom(s.cx, s.a1);
    assert.ok(started);
    assert.deepEqual(offered, ['anthropic/claude-a', 'openai/gpt-b (default)', 'local/loop']);
    const q = s.variants.runs[0].q;
    assert.deepEqual(q.models, [
      { provider: 'anthropic', id: 'claude-a' },
      { provider: 'local', id: 'loop' },
    ]);
    assert.equal(q.check, undefined);
    assert.equal((mock.inputBoxes[1] as { value?: string }).value, 'make check', 'the last check is offered');
    assert.equal(s.lastCheck(), '');
    s.variants.runs[0].finish();
    await started.finished;
  });

  it('refuses in Restricted Mode and on a read-only session before asking anything; a dismissed question starts nothing', async () => {
    const s = await setup();
    mock.trusted = false;
    await assert.rejects(tryVariantsFrom(s.cx, s.a1), /Restricted Mode/);
    mock.trusted = true;
    const ro = await setup({ readOnly: 'the file is read-only' });
    await assert.rejects(tryVariantsFrom(ro.cx, ro.a1), /read-only/);
    assert.equal(mock.inputBoxes.length, 0);
    await assert.rejects(tryVariantsFrom(s.cx, 'nosuchid'), /no entry/);
    inputs(undefined);
    assert.equal(await tryVariantsFrom(s.cx, s.a1), undefined);
    inputs('p');
    mock.quickPick = () => undefined;
    assert.equal(await tryVariantsFrom(s.cx, s.a1), undefined);
    inputs('p', undefined);
    mock.quickPick = pickInOrder('2 variants');
    assert.equal(await tryVariantsFrom(s.cx, s.a1), undefined, 'the check question dismissed');
    assert.equal(s.variants.runs.length, 0);
    assert.equal(s.shown.length, 0);
  });
});

describe("the variants view's requests", () => {
  async function running() {
    const s = await setup();
    inputs('p', '');
    mock.quickPick = pickInOrder('2 variants');
    const started = (await tryVariantsFrom(s.cx, s.a1))!;
    const run = s.variants.runs[0];
    const opened: string[] = [];
    const docs = new CodeDocuments();
    const deps = { variants: s.variants, docs, openTree: async (f: string) => void opened.push(f) };
    const ask = <B extends VariantsRequest>(b: B) => handleVariantRequest(b, started.state, deps);
    return { ...s, run, state: started.state, started, ask, opened, docs };
  }

  it('cancel one or all, open the session, a file against the working folder and all files', async () => {
    const r = await running();
    const folder = tempDir('pi-tree-variant-folder-');
    mkdirSync(join(folder, 'src'));
    writeFileSync(join(folder, 'src', 'a.ts'), 'variant\n');
    writeFileSync(join(folder, 'new.txt'), 'new\n');
    mkdirSync(join(r.cwd, 'src'));
    writeFileSync(join(r.cwd, 'src', 'a.ts'), 'mine\n');
    r.run.report({ index: 0, phase: 'running', variantId: 'v0', session: '/s/v0.jsonl', folder });
    assert.deepEqual(await r.ask({ kind: 'cancel', index: 0 }), { cancelling: true });
    assert.deepEqual(r.run.cancels, [0]);
    assert.deepEqual(await r.ask({ kind: 'cancelAll' }), { cancelling: 2 });
    assert.deepEqual(r.run.cancels, [0, undefined]);
    await r.ask({ kind: 'openSession', index: 0 });
    assert.deepEqual(r.opened, ['/s/v0.jsonl']);
    await assert.rejects(r.ask({ kind: 'openSession', index: 1 }), /no session/);
    await assert.rejects(r.ask({ kind: 'openSession', index: 5 }), /no variant 6/);
    r.run.report({
      index: 0,
      phase: 'done',
      files: [
        { path: 'src/a.ts', status: 'changed', added: 1, removed: 1 },
        { path: 'new.txt', status: 'created', added: 1, removed: 0 },
      ],
    });
    const diffs: unknown[][] = [];
    mock.builtins.set('vscode.diff', (...a) => void diffs.push(a));
    mock.builtins.set('vscode.changes', (...a) => void diffs.push(a));
    await r.ask({ kind: 'diffFile', index: 0, file: 0 });
    const [left, right, title] = diffs[0] as [Uri, Uri, string];
    assert.equal(
      left.scheme,
      'pi-tree-code',
      "the node's version on the left (from the variant's store), not the user's file",
    );
    assert.equal(new URLSearchParams(left.query).get('what'), 'at the node');
    assert.equal(left.path, Uri.file(join(r.cwd, 'src', 'a.ts')).path, "named like the user's file (its language)");
    assert.deepEqual(r.variants.asked, [`${folder}:${join('src', 'a.ts')}`]);
    assert.equal(right.fsPath, join(folder, 'src', 'a.ts'), "the variant's on the right");
    assert.match(title, /src\/a\.ts: the node ↔ variant 1/);
    await assert.rejects(r.ask({ kind: 'diffFile', index: 0, file: 2 }), /no file 3/);
    assert.deepEqual(await r.ask({ kind: 'diffAll', index: 0 }), { files: 2 });
    const [, resources] = diffs[1] as [string, [Uri, Uri, Uri][]];
    assert.equal(resources.length, 2);
    assert.equal(resources[1][1].scheme, 'pi-tree-code', 'a file absent at the node is an empty document');
    assert.equal(new URLSearchParams(resources[1][1].query).get('what'), 'absent at the node');
    assert.equal(resources[1][2].fsPath, join(folder, 'new.txt'));
    r.run.finish();
    await r.started.finished;
  });

  it("a path outside the variant's folder in an outcome is never opened", async () => {
    const r = await running();
    r.run.report({
      index: 0,
      phase: 'done',
      folder: '/f/v0',
      files: [{ path: '../../etc/passwd', status: 'changed', added: 1, removed: 0 }],
    });
    mock.builtins.set('vscode.diff', () => assert.fail('no diff of a path outside'));
    await assert.rejects(r.ask({ kind: 'diffFile', index: 0, file: 0 }), /not a file of the variant's folder/);
    r.run.finish();
  });

  it('adopt: refused while running; previewed in the multi-file diff, decided, written, Undo puts back; the session opens', async () => {
    const r = await running();
    r.run.report({ index: 1, phase: 'running', variantId: 'v1', session: '/s/v1.jsonl', folder: '/f/v1' });
    await assert.rejects(r.ask({ kind: 'adopt', index: 1 }), /still running/);
    r.run.report({ index: 1, phase: 'done' });
    const path = join(r.cwd, 'a.txt');
    r.variants.plan = {
      targetId: 'x',
      from: { entryId: r.a1, how: 'snapshot' },
      target: { how: 'snapshot' },
      items: [
        {
          key: 'a.txt',
          path,
          action: 'create',
          now: { kind: 'absent' },
          target: { kind: 'file' },
          latest: { kind: 'absent' },
        },
      ],
      same: 0,
      sameKeys: [],
      notes: [],
      fingerprint: 'f',
      sides: new Map([
        [
          'a.txt',
          {
            now: { kind: 'absent' },
            target: { kind: 'file', sha: 'abc', mode: 0o100644, bytes: Buffer.from('theirs\n') },
            latest: { kind: 'absent' },
          },
        ],
      ]),
    } as unknown as RestorePlan;
    const previews: unknown[][] = [];
    mock.builtins.set('vscode.changes', (...a) => {
      previews.push(a);
      mock.tabs.push({ label: a[0] as string });
    });
    let undo: Promise<unknown> | undefined;
    mock.answer = (m) => {
      // the choice, beside the preview (a notification, as a restore's)
      if (/^Adopt variant 2/.test(m.message)) return 'Adopt';
      if (/^Adopted 1 file of variant 2/.test(m.message)) {
        undo = until(() => r.variants.undos.length === 1, 20_000, 'the undo');
        return 'Undo';
      }
      return undefined;
    };
    assert.deepEqual(await r.ask({ kind: 'adopt', index: 1 }), { adopted: true });
    assert.equal(previews.length, 1);
    const [label, resources] = previews[0] as [string, [Uri, Uri, Uri][]];
    assert.match(label, /^Adopt variant 2/);
    assert.equal(resources[0][2].scheme, 'pi-tree-code', "the variant's bytes on the right");
    assert.equal(mock.tabs.length, 0, 'the preview is closed once decided');
    assert.equal(r.variants.adoptWrites.length, 1);
    assert.deepEqual(r.opened, ['/s/v1.jsonl'], "the variant's session opens in its tree");
    await undo;
    await until(() => r.state.card(1).adopted !== true, 20_000, 'the card no longer adopted');
    // Undo from the view too, once adopted again.
    mock.answer = (m) => (/^Adopt variant 2/.test(m.message) ? 'Adopt' : undefined);
    await r.ask({ kind: 'adopt', index: 1 });
    assert.equal(r.state.card(1).adopted, true);
    assert.deepEqual(await r.ask({ kind: 'undoAdopt', index: 1 }), { undone: true });
    assert.deepEqual(r.variants.undos, [false, false]);
    // A cancelled decision (the notification closed) writes nothing.
    mock.answer = () => undefined;
    assert.deepEqual(await r.ask({ kind: 'adopt', index: 1 }), { adopted: false });
    assert.equal(r.variants.adoptWrites.length, 2);
    r.run.finish();
  });

  it('discard: asked first; declined keeps it, confirmed discards it and the card says so', async () => {
    const r = await running();
    r.run.report({ index: 0, phase: 'done', variantId: 'v0', session: '/s/v0.jsonl', folder: '/f/v0' });
    mock.answer = () => undefined;
    assert.deepEqual(await r.ask({ kind: 'discard', index: 0 }), { discarded: false });
    assert.equal(r.variants.discarded.length, 0);
    mock.answer = (m) => (m.modal && /^Discard variant 1/.test(m.message) ? 'Discard' : undefined);
    assert.deepEqual(await r.ask({ kind: 'discard', index: 0 }), { discarded: true });
    assert.deepEqual(r.variants.discarded, [{ variantId: 'v0', session: '/s/v0.jsonl' }]);
    const card = r.state.card(0);
    assert.equal(card.discarded, true);
    assert.equal(card.made, false);
    await assert.rejects(r.ask({ kind: 'discard', index: 0 }), /nothing to discard/);
    r.run.finish();
  });
});
