// A real pi 1.6.0 (RPC mode, the bridge loaded) that writes code: the loopback model answers each prompt
// with the tool calls the test scripted for it (write, edit, bash…), then with a short text once the
// tool results come back. The working folder is a git repository of the "user's" own, so tests can
// check that it is never touched.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionSse, startLoopback, toolCallsSse, type Loopback, type Reply } from './loopbackOpenAI.js';
import { lastUserText, stepsDone } from './askPi.js';
import { makePiEnv, PiRpc, type PiEnv } from './piRpc.js';
import { tempDir } from './tmp.js';

export type Call = { name: string; arguments: Record<string, unknown> };

export interface CodingPi {
  lb: Loopback;
  pe: PiEnv;
  pi: PiRpc;
  file: string;
  /** Sends `prompt`; the model makes `steps` (one list of calls per model turn), then answers. */
  turn(prompt: string, ...steps: Call[][]): Promise<void>;
  /** Stops pi (the loopback model stays). */
  stopPi(): Promise<void>;
  /** Starts pi again on the same session. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

type Rec = Record<string, any>;

export async function startCodingPi(
  opts: {
    files?: Record<string, string>;
    gitInit?: boolean;
    settings?: Rec;
    env?: NodeJS.ProcessEnv;
    /** pi's agent dir (`.pi/agent`) and the session file (`.sessions/`) inside the working folder. */
    inside?: boolean;
  } = {},
): Promise<CodingPi> {
  const scripts = new Map<string, Call[][]>();
  const lb = await startLoopback((req): Reply => {
    const steps = scripts.get(lastUserText(req)) ?? [];
    const done = stepsDone(req);
    return done < steps.length ? toolCallsSse(steps[done]) : completionSse(`done: ${lastUserText(req).slice(0, 40)}`);
  });
  const root = opts.inside ? tempDir('pi-bridge-') : '';
  const where = opts.inside ? { workDir: join(root, 'work'), agentDir: join(root, 'work', '.pi', 'agent') } : undefined;
  const pe = makePiEnv(lb, { compaction: { enabled: false }, ...opts.settings }, where);
  if (opts.env) Object.assign(pe.env, opts.env);
  for (const [rel, text] of Object.entries(opts.files ?? {})) {
    mkdirSync(join(pe.workDir, rel, '..'), { recursive: true });
    writeFileSync(join(pe.workDir, rel), text);
  }
  if (opts.gitInit !== false) {
    const g = (...a: string[]) =>
      execFileSync('git', a, {
        cwd: pe.workDir,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'u',
          GIT_AUTHOR_EMAIL: 'u@x',
          GIT_COMMITTER_NAME: 'u',
          GIT_COMMITTER_EMAIL: 'u@x',
        },
      });
    g('init', '-q');
    g('add', '-A');
    g('commit', '-q', '--allow-empty', '-m', 'user commit');
  }
  const sessions = opts.inside ? join(pe.workDir, '.sessions') : join(pe.workDir, '..', 'sessions');
  mkdirSync(sessions, { recursive: true });
  const file = join(sessions, '2026-03-01T10-00-00-000Z_019b8f3a-0000-7000-8000-00000000c0de.jsonl');
  const cp: CodingPi = {
    lb,
    pe,
    pi: PiRpc.start(file, pe),
    file,
    async turn(prompt, ...steps) {
      scripts.set(prompt, steps);
      await cp.pi.prompt(prompt);
    },
    async stopPi() {
      await cp.pi.stop();
    },
    async restart() {
      await cp.pi.stop();
      cp.pi = PiRpc.start(file, pe);
      await cp.pi.ready();
    },
    async stop() {
      await cp.pi.stop();
      await lb.close();
    },
  };
  // Started before it is handed out: the first turn's wait is for the turn, not for pi's start too.
  await cp.pi.ready();
  return cp;
}

/** Every file under `dir` with its bytes (for "byte-identical" checks of a user's .git). */
export function treeBytes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(p.slice(dir.length), `${st.mode.toString(8)}:${readFileSync(p).toString('base64')}`);
    }
  };
  walk(dir);
  return out;
}
