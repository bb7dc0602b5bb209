// Shared by the bridge suites: waiting for a bridge, comparing what pi sent its model with what
// `pi-tree context FILE --leaf ID` predicts, and stopping pi as its Ctrl+Z does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { context as contextCommand } from '../../src/cli/commands.js';
import { findBridge, type LiveBridgeInfo } from '../../src/core/piClient/discovery.js';
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { join } from 'node:path';
import { completionSse, startLoopback, type Loopback, type RecordedRequest } from '../support/loopbackOpenAI.js';
import {
  assistantOf,
  makePiEnv,
  PI_REPLY_MS,
  PI_START_MS,
  PiRpc,
  sessionBuilder,
  writeSession,
  type PiEnv,
} from '../support/piRpc.js';
import { until } from '../../scripts/lib/until.js';

type Rec = Record<string, any>;

/** Waits until a live bridge serves `file` (and, when given, belongs to `pi`); the limit covers a pi start. */
export function waitForBridge(
  file: string,
  env: NodeJS.ProcessEnv,
  pi?: PiRpc,
  timeoutMs = PI_START_MS,
): Promise<LiveBridgeInfo> {
  return until(
    async () => {
      // (a pi that does not answer yet, say one just resumed with SIGCONT, is waited for)
      const info = await findBridge(file, { env }).catch((e: unknown) => {
        if ((e as { code?: string }).code === 'unresponsive') return undefined;
        throw e;
      });
      if (info && (!pi || info.record.pid === pi.pid)) return info;
      if (pi && pi.child.exitCode !== null)
        throw new Error(`pi exited (${pi.child.exitCode}) before its bridge appeared: ${pi.stderr.slice(-2000)}`);
      return undefined;
    },
    timeoutMs,
    () => `a bridge for ${file}; pi stderr: ${pi?.stderr.slice(-2000)}`,
  );
}

/** `pi-tree context FILE --leaf ID --json`, run in-process through the CLI command itself. */
export async function piTreeContext(
  file: string,
  leaf: string | null,
): Promise<{ leafId: string | null; path: string[]; messages: Rec[] }> {
  const chunks: Buffer[] = [];
  const io = {
    out: () => assert.fail('context --json writes JSON only'),
    json: (s: string | Buffer) => chunks.push(Buffer.from(s)),
    err: () => {},
    env: process.env,
  };
  const code = await contextCommand([file, '--leaf', leaf ?? 'root', '--json'], io);
  assert.equal(code, 0);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: Rec) => (p.type === 'text' ? p.text : p.type === 'image_url' ? '[image]' : '')).join('');
}

/** What an OpenAI chat request carried, as [role, text] (system prompt left out, tool calls named). */
export function requestTurns(req: RecordedRequest): string[][] {
  return (req.body.messages as Rec[])
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map((m) => {
      const calls = (m.tool_calls ?? [])
        .map((c: Rec) => `call ${c.function?.name}(${c.function?.arguments})`)
        .join(' ');
      return [m.role === 'tool' ? 'tool' : m.role, [textOf(m.content), calls].filter(Boolean).join(' ')];
    });
}

/** pi-tree's predicted messages turned into model turns by pi's own convertToLlm, as [role, text]. */
let piMessages: Promise<{ convertToLlm(m: Rec[]): Rec[] }> | undefined;
export async function predictedTurns(messages: Rec[]): Promise<string[][]> {
  // pi's messages module alone (its package index takes seconds to import).
  piMessages ??= import(
    pathToFileURL(resolve('node_modules/@earendil-works/pi-coding-agent/dist/core/messages.js')).href
  );
  const pi = await piMessages;
  return (pi.convertToLlm(messages) as Rec[])
    .filter((m) => m.role !== 'system')
    .map((m) => {
      if (m.role === 'toolResult') return ['tool', textOf(m.content)];
      const calls = Array.isArray(m.content)
        ? m.content
            .filter((p: Rec) => p.type === 'toolCall')
            .map((c: Rec) => `call ${c.name}(${JSON.stringify(c.arguments)})`)
            .join(' ')
        : '';
      return [m.role, [textOf(m.content), calls].filter(Boolean).join(' ')];
    });
}

/**
 * The last model request pi sent is exactly pi-tree's context at the user message pi just appended (the
 * prompt), and that message hangs under `under` (where the leaf was moved).
 */
export async function assertPromptMatches(
  file: string,
  requests: RecordedRequest[],
  prompt: string,
  under: string | null,
): Promise<void> {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
  const promptEntry = [...lines]
    .reverse()
    .find((e) => e.type === 'message' && e.message.role === 'user' && textOf(e.message.content) === prompt);
  assert.ok(promptEntry, `pi wrote the prompt "${prompt}"`);
  const ctx = await piTreeContext(file, promptEntry.id);
  if (under !== null)
    assert.ok(ctx.path.includes(under), `the prompt hangs under ${under} (path ${ctx.path.join(' ')})`);
  const req = [...requests]
    .reverse()
    .find((r) => requestTurns(r).some(([role, text]) => role === 'user' && text === prompt));
  assert.ok(req, `pi sent the prompt "${prompt}" to the model`);
  assert.deepEqual(requestTurns(req), await predictedTurns(ctx.messages));
}

/** Entries of the file, parsed. */
export function fileEntries(file: string): Rec[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec)
    .slice(1);
}

/** The state letter of a process in /proc/<pid>/stat (Linux): R, S, T (stopped) … */
export function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/**
 * Stops `pid` as pi's own Ctrl+Z does (SIGSTOP), runs `fn`, and always lets it go on (SIGCONT), even
 * when `fn` throws. Runs `fn` once the kernel shows the process stopped (where /proc tells).
 */
export async function whileStopped<T>(pid: number, fn: () => Promise<T>): Promise<T> {
  process.kill(pid, 'SIGSTOP');
  try {
    if (process.platform === 'linux') {
      await until(
        () => procState(pid) === 'T',
        PI_REPLY_MS,
        () => `pid ${pid} to stop (state ${procState(pid)})`,
        10,
      );
    }
    return await fn();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/**
 * Connects to `endpoint` and closes each connection at once, until connect() fails: with nobody
 * accepting (a stopped pi) every connection stays in the socket's accept queue. Resolves with the
 * number that fitted and the error code of the first that did not.
 */
export async function fillAcceptQueue(endpoint: string, max = 5000): Promise<{ queued: number; code: string }> {
  for (let n = 0; n < max; n++) {
    const code = await new Promise<string | undefined>((resolve) => {
      const s = connect(endpoint);
      s.once('connect', () => {
        s.destroy();
        resolve(undefined);
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    if (code) return { queued: n, code };
  }
  throw new Error(`${max} connections fitted in the accept queue of ${endpoint}`);
}

export type TwoTurnIds = Record<'u1' | 'a1' | 'u2' | 'a2', string>;

/** The two-turn session the bridge tests drive ("first question" … "second answer"), written as `dir/name`. */
export function writeTwoTurns(dir: string, name: string, cwd = dir): { file: string; ids: TwoTurnIds } {
  const b = sessionBuilder(cwd);
  const ids = {
    u1: b.user('first question'),
    a1: assistantOf(b, 'first answer'),
    u2: b.user('second question'),
    a2: assistantOf(b, 'second answer'),
  };
  return { file: writeSession(b, join(dir, name)), ids };
}

/** A loopback model answering "ok" and pi 1.6.0 with the bridge on a two-turn session (`name` in its work dir), found by discovery. */
export async function startTwoTurnPi(
  name: string,
): Promise<{ lb: Loopback; pe: PiEnv; pi: PiRpc; file: string; ids: TwoTurnIds }> {
  const lb = await startLoopback(() => completionSse('ok'));
  const pe = makePiEnv(lb);
  const { file, ids } = writeTwoTurns(pe.workDir, name);
  const pi = PiRpc.start(file, pe);
  await waitForBridge(file, pe.env, pi);
  return { lb, pe, pi, file, ids };
}
