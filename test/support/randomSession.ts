// Seeded random pi 1.6.0 sessions with every entry type and the awkward cases summaries must handle:
// branches, tool calls and results (some over 2000 chars, some split inside a surrogate pair),
// nested codemode calls, images, bash executions, system messages with sections and tool changes,
// custom messages, branch summaries and compactions (pi-made and hook-made), context edits.
import { SessionBuilder, usageOf, words } from './sessionBuilder.js';

import { mulberry32 } from './generate.js';
export { mulberry32 };

const FILES = ['src/a.ts', 'src/b.ts', 'README.md', 'docs/x.md', 'test/t.test.ts', 'package.json'];
const TOOLS = ['read', 'write', 'edit', 'bash', 'grep'];

export function randomSession(seed: number, n = 300): SessionBuilder {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const text = (max: number) => words(Math.floor(rnd() * max) + 1, Math.floor(rnd() * 1e6));
  const b = new SessionBuilder({ id: `019b8f3a-0000-7000-8000-${seed.toString(16).padStart(12, '0')}` });
  const pathIds = (): string[] => {
    const byId = new Map(b.entries.map((e) => [e.id, e]));
    const out: string[] = [];
    let cur = b.leaf ? byId.get(b.leaf) : undefined;
    while (cur) {
      out.unshift(cur.id);
      cur = cur.parentId ? byId.get(cur.parentId) : undefined;
    }
    return out;
  };
  let call = 0;
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.04 && b.entries.length) {
      b.at(rnd() < 0.05 ? null : pick(b.entries).id);
    } else if (r < 0.26) {
      const k = rnd();
      if (k < 0.1)
        b.user([
          { type: 'text', text: text(300) },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'text', text: text(50) },
        ]);
      else if (k < 0.2) b.message({ role: 'user', content: text(200) });
      else b.user(text(1500));
    } else if (r < 0.5) {
      const calls =
        rnd() < 0.5
          ? Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
              const name = pick(TOOLS);
              const args: Record<string, unknown> =
                name === 'bash'
                  ? { command: `ls ${pick(FILES)}` }
                  : name === 'grep'
                    ? { pattern: 'x', path: pick(FILES) }
                    : { path: pick(FILES) };
              if (name === 'edit') Object.assign(args, { oldText: text(40), newText: text(40) });
              if (name === 'write') args.content = text(200);
              return { name, args, id: `call_${++call}` };
            })
          : [];
      const u = rnd();
      const usage =
        u < 0.1 ? usageOf(0, 0) : u < 0.2 ? null : usageOf(Math.floor(rnd() * 50000), Math.floor(rnd() * 2000));
      const stop = rnd() < 0.05 ? pick(['aborted', 'error', 'length']) : undefined;
      b.assistant({
        text: rnd() < 0.85 ? text(1200) : undefined,
        thinking: rnd() < 0.3 ? text(800) : undefined,
        calls,
        usage,
        stopReason: stop,
      });
      for (const c of calls) {
        let out = rnd() < 0.2 ? text(5000) : text(600);
        // A surrogate pair across the 2000-char cut of serialized tool results.
        if (rnd() < 0.1) out = `${'x'.repeat(1999)}🌳${text(100)}`;
        const extra =
          rnd() < 0.15
            ? {
                nestedCalls: {
                  calls: [
                    {
                      id: `n${call}`,
                      name: pick(['read', 'write', 'edit']),
                      arguments: { path: pick(FILES) },
                      status: 'ok',
                    },
                  ],
                  complete: true,
                },
              }
            : {};
        b.toolResult(c.id, c.name, out, extra);
      }
    } else if (r < 0.55) {
      b.message({
        role: 'bashExecution',
        command: `npm test -- ${text(20)}`,
        output: text(800),
        exitCode: rnd() < 0.3 ? 1 : 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: rnd() < 0.2,
      });
    } else if (r < 0.6) {
      const first = !b.entries.some((e) => e.type === 'message' && e.message.role === 'system');
      const sections: Record<string, string | null> = first
        ? { env: `cwd=/p ${text(40)}`, skills: text(100) }
        : rnd() < 0.5
          ? { skills: null, date: text(20) }
          : { env: text(30) };
      const extra: Record<string, unknown> = { sections };
      if (first || rnd() < 0.5)
        extra.toolsAdded = [{ name: pick(TOOLS), description: text(60), parameters: { type: 'object' } }];
      if (!first && rnd() < 0.3) extra.toolsRemoved = [{ name: pick(TOOLS) }];
      b.system(first ? text(400) : rnd() < 0.5 ? '' : text(100), extra);
    } else if (r < 0.64) {
      b.customMessage(text(300), pick(['ext.note', 'ext.todo']));
    } else if (r < 0.68 && b.entries.length) {
      const hook = rnd() < 0.25;
      b.branchSummary(pick(b.entries).id, rnd() < 0.1 ? '' : text(900), {
        details: hook
          ? { anything: 1, readFiles: ['hook-only.md'] }
          : { readFiles: [pick(FILES)], modifiedFiles: rnd() < 0.5 ? [pick(FILES)] : [] },
        fromHook: hook,
      });
    } else if (r < 0.72 && b.entries.length) {
      const ids = pathIds();
      const hook = rnd() < 0.2;
      const firstKept = rnd() < 0.1 || !ids.length ? undefined : ids[Math.floor(ids.length * (0.4 + rnd() * 0.6))];
      const extra: Record<string, unknown> = {
        details: hook ? { custom: true } : { readFiles: [pick(FILES)], modifiedFiles: [pick(FILES)] },
        fromHook: hook,
      };
      if (rnd() < 0.3)
        extra.systemMessage = {
          role: 'system',
          content: text(200),
          sections: { env: 'cwd=/p' },
          timestamp: 1700000000000,
        };
      const id = b.compaction(text(700), firstKept ?? 'SELF', Math.floor(rnd() * 100000), extra);
      if (!firstKept) b.entries[b.entries.length - 1].firstKeptEntryId = id;
    } else if (r < 0.76) {
      const ids = pathIds().filter((id) => {
        const e = b.entries.find((x) => x.id === id)!;
        return (
          (e.type === 'message' && ['user', 'assistant', 'toolResult'].includes(e.message.role)) ||
          e.type === 'custom_message'
        );
      });
      if (ids.length)
        b.contextEdit(
          pick(ids),
          rnd() < 0.5 ? null : { content: rnd() < 0.5 ? text(100) : [{ type: 'text', text: text(100) }] },
        );
    } else if (r < 0.8 && b.entries.length) {
      b.label(pick(b.entries).id, rnd() < 0.2 ? undefined : text(20));
    } else if (r < 0.84) {
      b.modelChange(`m-${Math.floor(rnd() * 5)}`);
    } else if (r < 0.88) {
      b.thinking(pick(['off', 'low', 'high']));
    } else if (r < 0.92) {
      b.custom('ext.state', { n: i });
    } else if (r < 0.94) {
      b.add('session_info', { name: text(20) });
    } else if (r < 0.95) {
      b.message({ role: 'custom', customType: 'migrated', content: text(100), display: true });
    } else {
      b.user(text(800));
    }
  }
  // End on a conversation entry so the leaf is somewhere sensible.
  b.user(text(300));
  b.assistant({ text: text(300) });
  return b;
}
