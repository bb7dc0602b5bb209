// Temp directories for tests, removed when the process exits.
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.on('exit', () => {
  if (process.env.PI_TREE_KEEP_TMP) return;
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'pi-tree-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Writes `text` to a new temp file and returns its path. */
export function tempFile(text: string | Buffer, name = 'session.jsonl'): string {
  const p = join(tempDir(), name);
  writeFileSync(p, text);
  return p;
}

export function lines(p: string): Record<string, unknown>[] {
  return readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Builds session text from a header and entries (compact lines, "\n" endings, as pi writes). */
export function sessionText(
  entries: Record<string, unknown>[],
  header: Record<string, unknown> = {
    type: 'session',
    version: 3,
    id: '01990000-0000-7000-8000-000000000001',
    timestamp: '2026-11-01T09:00:00.000Z',
    cwd: '/home/dev/project',
  },
): string {
  return [header, ...entries].map((e) => `${JSON.stringify(e)}\n`).join('');
}

let clock = Date.UTC(2026, 10, 1, 9, 0, 0);
export function ts(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

export function user(id: string, parentId: string | null, text: string): Record<string, unknown> {
  const t = ts();
  return {
    type: 'message',
    id,
    parentId,
    timestamp: t,
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(t) },
  };
}

export function assistant(
  id: string,
  parentId: string | null,
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const t = ts();
  return {
    type: 'message',
    id,
    parentId,
    timestamp: t,
    message: {
      role: 'assistant',
      content: [{ type: 'text', text }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-x',
      usage: {
        input: 10,
        output: 5,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 15,
        cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 },
      },
      stopReason: 'stop',
      timestamp: Date.parse(t),
      ...extra,
    },
  };
}

export function entry(
  type: string,
  id: string,
  parentId: string | null,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  return { type, id, parentId, timestamp: ts(), ...fields };
}
