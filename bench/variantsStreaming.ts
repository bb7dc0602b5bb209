// The explorer while variants run, in the real VS Code (code-server, headless Chromium) with the real pi
// 1.6.0: a session whose node holds a checkpoint (pi wrote src/app.ts with the bridge), "Try variants"
// with 4 variants of the session's model and `piTree.variants.jobs` 4, so four headless pis answer at
// once, each streaming a long answer from the loopback model (an SSE piece every 200 ms for a minute);
// the variants view opens, then the tree's tab is brought back and the keyboard steps through it (↑ and
// ↓ in turn), each timed from the key press (page clock) to the frame that paints the new selection,
// as the click bench's steps are. The same steps before the run are the baseline. Only steps pressed
// while all four answers were still streaming count.
// BENCH_ONLY=streamsteps; BENCH_SS_STEPS (20).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { sessionDirFor, sessionFileName } from '../scripts/lib/demoSessions.js';
import { lastUserText, stepsDone } from '../test/support/askPi.js';
import { completionSse, startLoopback, toolCallsSse } from '../test/support/loopbackOpenAI.js';
import { makePiEnv, PiRpc, piShim } from '../test/support/piRpc.js';
import { VSCode } from '../test/e2e/harness.js';
import * as sel from '../test/e2e/selectors.js';
import { openTree, selectByFind, until } from '../test/e2e/uxHelpers.js';
import { keyboardSteps, webviewFrame, type StepSample } from './click/measure';
import { PROBE } from './click/probe';
import { fmt, log, median, rows } from './report';

const PROMPT = 'stream a long answer';
const VARIANTS = 4;
const PIECES = 300;
const PIECE_MS = 200;
/** The step target while variants stream. */
const TARGET_MS = 50;

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const summary = (xs: StepSample[]) =>
  `median **${fmt(median(xs.map((x) => x.ms)))}** ms, p95 ${fmt(p95(xs.map((x) => x.ms)))} ms, max ${fmt(Math.max(...xs.map((x) => x.ms)))} ms (n ${xs.length})`;

export async function variantsStreamingBench(): Promise<void> {
  const steps = Number(process.env.BENCH_SS_STEPS ?? 20);
  /** When each variant's streamed answer started (ms, this process's clock). */
  const streams: number[] = [];
  const lb = await startLoopback((req) => {
    const user = lastUserText(req);
    const done = stepsDone(req);
    if (user === 'write the app')
      return done === 0
        ? toolCallsSse([{ name: 'write', arguments: { path: 'src/app.ts', content: 'export const app = 1;\n' } }])
        : completionSse('app written');
    if (user === PROMPT) {
      streams.push(Date.now());
      const text = Array.from({ length: PIECES }, (_, i) => `Part ${i + 1} of the answer, streamed. `).join('');
      return completionSse(text, { pieces: PIECES, delayMs: PIECE_MS });
    }
    return completionSse(`answer: ${user}`);
  });
  let nodeId = '';
  let bin = '';
  const load0 = loadavg()[0];
  const vs = await VSCode.launch('variants-streaming-bench', {
    sessions: async ({ agentDir, workspace }) => {
      const pe = makePiEnv(
        lb,
        { retry: { enabled: false }, compaction: { enabled: false } },
        { agentDir, workDir: workspace },
      );
      bin = piShim(join(agentDir, '..'));
      writeFileSync(join(workspace, 'README.md'), 'hello\n');
      mkdirSync(sessionDirFor(agentDir, workspace), { recursive: true });
      const file = join(
        sessionDirFor(agentDir, workspace),
        sessionFileName('2026-03-01T10:00:00.000Z', '019b8f3a-0000-7000-8000-00000000b5e1'),
      );
      const pi = PiRpc.start(file, pe);
      try {
        await pi.ready();
        await pi.prompt('write the app');
        nodeId = (await pi.leaf())!;
      } finally {
        await pi.stop();
      }
    },
    settings: () => ({ 'piTree.piCommand': join(bin, 'pi'), 'piTree.variants.jobs': VARIANTS }),
    env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    timeout: 900_000,
  });
  let failure: unknown;
  try {
    await vs.context.addInitScript(PROBE);
    let wv = await openTree(vs, 'write the app');
    await selectByFind(wv, 'app written', nodeId);
    const keys = ['ArrowUp', 'ArrowDown'];
    const baseline = await keyboardSteps(vs, await webviewFrame(vs), steps, keys);
    log(`steps before the run: ${baseline.map((x) => x.ms).join(', ')} ms`);

    // Try variants: the prompt, "4 variants", no check.
    await wv.locator('[role="tree"]').press('Shift+V');
    const input = vs.page.locator(sel.quickInput.input);
    await input.waitFor({ state: 'visible' });
    await input.fill(PROMPT);
    await input.press('Enter');
    await vs.page
      .locator(sel.quickInput.row)
      .filter({ hasText: `${VARIANTS} variants` })
      .first()
      .click();
    await until(
      async () => ((await input.inputValue()) === '' && (await input.isVisible()) ? true : undefined),
      30_000,
      'the check question',
    );
    await input.press('Enter');
    await until(() => (streams.length === VARIANTS ? true : undefined), 600_000, `${VARIANTS} answers streaming`);
    const streamsEnd = Math.min(...streams) + PIECES * PIECE_MS;
    // Back to the tree while the four stream.
    await vs.page.locator(sel.editor.tab).filter({ hasText: 'write the app' }).first().click();
    wv = vs.webview();
    await wv.locator(`[role="treeitem"][data-entry-id="${nodeId}"]`).waitFor({ timeout: 120_000 });
    await selectByFind(wv, 'app written', nodeId);
    const during: StepSample[] = [];
    const frame = await webviewFrame(vs);
    while (during.length < steps && Date.now() < streamsEnd - 2_000) {
      const t = Date.now();
      const [s] = await keyboardSteps(vs, frame, 1, [keys[during.length % 2]]);
      if (t + s.ms < streamsEnd) during.push(s);
    }
    log(`steps while ${VARIANTS} variants stream: ${during.map((x) => x.ms).join(', ')} ms`);
    if (!during.length) throw new Error('no step landed while the variants streamed');
    await vs.screenshot('steps-while-streaming');
    const pass = median(during.map((x) => x.ms)) < TARGET_MS;
    rows.push({
      what: `variants: explorer steps while ${VARIANTS} variants stream, real VS Code`,
      how: `a session whose node holds a checkpoint; Try variants (Shift+V) with ${VARIANTS} variants of the session's model and \`piTree.variants.jobs\` ${VARIANTS}: four headless pi 1.6.0 (bridge loaded) each streaming an answer from the loopback model (an SSE piece every ${PIECE_MS} ms for ${fmt((PIECES * PIECE_MS) / 1000)} s); the variants view opened, then the tree's tab brought back; ↑ and ↓ in turn, each from the key press (page clock) to the frame that paints the new selection; only steps pressed and painted while all four still streamed count; the same steps before the run as the baseline`,
      target: `step < ${TARGET_MS} ms`,
      result: `while streaming: ${summary(during)}; before the run: ${summary(baseline)}; load ${fmt(load0, 1)}–${fmt(loadavg()[0], 1)}`,
      pass,
    });
    vs.assertNoExtensionErrors();
  } catch (e) {
    failure = e;
    throw e;
  } finally {
    await vs.close(failure);
    await lb.close();
  }
}
