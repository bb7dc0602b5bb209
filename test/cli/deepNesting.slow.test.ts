// Entries nested 10,000 and 200,000 levels deep (a tool call's arguments, a tool result's details, a custom
// entry, a custom message, a model change, a thinking level): JSON.parse reads them, but JSON.stringify
// and recursive walks overflow the stack. Every command finishes with its usual output and exit code, the
// file is left as it was, and what must be exact (context --json, a clone's lines) is exact.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonExact } from '../../src/shared/safeJson.js';
import { deepObject, deepSession } from '../support/deepSession.js';
import { loadPi } from '../support/pi.js';
import { tempDir, tempFile } from '../support/tmp.js';

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

/** Runs a command and checks that it succeeded without a stack overflow. */
function ok(args: string[]): string {
  const r = cli(args);
  assert.doesNotMatch(r.err, /Maximum call stack|RangeError/, `${args[0]}: ${r.err}`);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
  return r.out;
}

const session = (depth: number) => {
  const s = deepSession(depth);
  const dir = tempDir('pi-tree-deep-');
  const file = join(dir, '2026-01-05T10-00-00-000Z_019b8f3a-0000-7000-8000-000000000001.jsonl');
  return { ...s, file: tempFile(s.text, file.slice(dir.length + 1)) };
};

for (const depth of [10_000, 200_000]) {
  describe(`CLI on entries nested ${depth.toLocaleString('en-US')} levels deep`, () => {
    it('tree, tree --json and tree --filter all show every row; the call text is pi’s', () => {
      const { file, text, ids } = session(depth);
      // pi's tree-selector: `[name: ${JSON.stringify(args).slice(0, 40)}...]`
      const call = `[lookup: ${`{"query":${deepObject(depth)}}`.slice(0, 40)}...]`;
      const t = ok(['tree', file, '--filter', 'all']);
      assert.match(t, /\(9 shown \[all\]\)\n$/);
      assert.ok(t.includes(`${ids.r1}  • ${call}`), t);
      assert.ok(t.includes(`${ids.u2}  • user: and then?  ← active`), t);
      assert.match(ok(['tree', file]), /user: and then\?/);
      const j = JSON.parse(ok(['tree', file, '--json']));
      assert.equal(j.nodes.length, 9);
      assert.equal(j.nodes.find((n: { id: string }) => n.id === ids.r1).text, call);
      assert.equal(readFileSync(file, 'utf8'), text, 'reading never writes');
    });

    it('context lists the messages (a model and a thinking level that are not text read "[object]")', () => {
      const { file, text } = session(depth);
      const c = ok(['context', file]);
      assert.match(
        c,
        /^leaf \w+: 6 messages, thinking \[object\], model test\/\[object\]\n- user\n- assistant\n- toolResult\n- toolResult\n- custom\n- user\n$/,
      );
      assert.equal(readFileSync(file, 'utf8'), text, 'reading never writes');
    });

    it('context --json is pi’s buildSessionContext as JSON.stringify would write it', async () => {
      const { file, text, ids } = session(depth);
      const out = ok(['context', file, '--json']);
      const { SessionManager } = await loadPi();
      const theirs = SessionManager.open(tempFile(text)).buildSessionContext();
      const path = Object.values(ids);
      const want = `{"leafId":"${ids.u2}","path":${JSON.stringify(path)},"messages":${jsonExact(theirs.messages)},"thinkingLevel":${jsonExact(theirs.thinkingLevel)},"model":${jsonExact(theirs.model)}}\n`;
      assert.ok(out === want, `context --json differs from pi's (${out.length} vs ${want.length} characters)`);
      assert.equal(readFileSync(file, 'utf8'), text, 'reading never writes');
    });

    it('export writes the branch as Markdown; stats and files answer', () => {
      const { file, text, ids } = session(depth);
      const md = ok(['export', file, ids.u2]);
      assert.match(md, /<details><summary>lookup: \{&quot;query&quot;:\{&quot;a&quot;/);
      assert.match(md, /```json\n\{\n {2}"query": \{\n {4}"a": \{/);
      assert.match(md, /<details><summary>bash: ls<\/summary>/);
      assert.match(md, /and then\?/);
      assert.equal(JSON.parse(ok(['stats', file, '--json'])).messages, 5);
      ok(['files', file]);
      assert.equal(readFileSync(file, 'utf8'), text, 'reading never writes');
    });

    it('clone and fork copy the nested entries byte for byte', () => {
      const { file, text, ids } = session(depth);
      const source = text.split('\n').slice(1, -1);
      const cloned = readFileSync(ok(['clone', file]).trim(), 'utf8')
        .split('\n')
        .slice(1, -1);
      assert.equal(cloned.length, source.length);
      assert.ok(
        cloned.every((l, i) => l === source[i]),
        'the same lines',
      );
      const forked = readFileSync(ok(['fork', file, ids.u2]).trim(), 'utf8')
        .split('\n')
        .slice(1, -1);
      assert.ok(
        forked.length === source.length - 1 && forked.every((l, i) => l === source[i]),
        'the lines before the user message',
      );
      assert.equal(readFileSync(file, 'utf8'), text, 'the source is left as it was');
    });
  });
}
