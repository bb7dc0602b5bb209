// The sessions sidebar in a real VS Code: it lists the workspace's pi sessions (forks nested), follows
// another process that writes sessions, and renames and forks from the palette as pi would.
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { SessionBuilder } from '../../scripts/lib/demoSessions.js';
import { scenario } from './harness.js';
import * as sel from './selectors.js';
import { selectRow, treeShown, until } from './uxHelpers.js';

const parse = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('sessions sidebar', () => {
  scenario('sidebar lists, follows, renames and forks', async (vs) => {
    const demo = vs.demo!;
    await vs.openContainer();
    const rows = vs.treeRows();
    const named = rows.filter({ hasText: 'Stream the JSONL reader' });
    await named.waitFor();
    await rows.filter({ hasText: 'What does the leaf of a pi session mean?' }).waitFor();
    // the fork hangs under the session it came from (threaded, like pi's /resume), called by its own
    // first message (its first one is its source's)
    const forkRow = rows.filter({ hasText: 'Before streaming: measure how long' });
    await forkRow.waitFor();
    assert.equal(await rows.count(), 3);
    assert.equal(await named.getAttribute('aria-level'), '1');
    assert.equal(await forkRow.getAttribute('aria-level'), '2', 'the fork is nested one level under its parent');
    await vs.screenshot('listed');
    // a row's tooltip: its models, tokens and cost (read from the file once)
    // (a redraw of the list under a resting pointer shows no hover until the pointer moves: as a user
    // would, the pointer leaves and comes back when none came)
    const tip = vs.page.locator('.monaco-hover').filter({ hasText: 'Tokens:' });
    await until(
      async () => {
        await vs.page.mouse.move(5, 500);
        await named.hover();
        return (await tip.waitFor({ timeout: 8_000 }).then(
          () => true,
          () => false,
        ))
          ? true
          : undefined;
      },
      40_000,
      "the row's tooltip with its tokens",
    );
    assert.match(
      (await tip.textContent())!,
      /Models:\santhropic\/claude-sonnet-4-5[\s\S]*Tokens:\s[\d,]+\s·\sCost:\s\$\d+\.\d{4}/,
      '(VS Code renders spaces as no-break spaces)',
    );
    await vs.page.mouse.move(5, 500);

    // another process (pi) starts a new session in this folder: it appears
    const fresh = new SessionBuilder({ cwd: vs.workspace, seed: 'e2e-live', start: Date.now() - 60_000 });
    fresh.user('A brand new session written while VS Code is open');
    fresh.assistant('Hello from pi.');
    const file = fresh.write(vs.agentDir);
    const freshRow = rows.filter({ hasText: 'A brand new session written while VS Code is open' });
    await freshRow.waitFor({ timeout: 20_000 });
    await freshRow.filter({ hasText: '2 msgs' }).waitFor();
    // … and grows as pi appends to it
    const last = parse(readFileSync(file, 'utf8')).pop()!;
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'message', id: 'e2e00001', parentId: last.id, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'one more' }], timestamp: Date.now() } })}\n`,
    );
    await freshRow.filter({ hasText: '3 msgs' }).waitFor({ timeout: 20_000 });
    await freshRow.filter({ hasText: 'live' }).waitFor();
    await vs.screenshot('live');

    // rename from the palette: appends a session_info line, as pi's /resume rename does
    const small = demo.small.file!;
    await selectRow(vs, 'What does the leaf of a pi session mean?');
    await treeShown(vs, 'What does the leaf of a pi session mean?');
    await vs.runCommand('pi Tree: Rename Session…', { thenInput: true });
    const input = vs.page.locator(sel.quickInput.input);
    await input.waitFor();
    await input.fill('Leaf explained');
    await input.press('Enter');
    const info = await vs.pollFile(
      small,
      (t) => parse(t).find((e) => e.type === 'session_info') as Record<string, unknown> | undefined,
    );
    assert.equal(info.name, 'Leaf explained');
    assert.equal(info.parentId, demo.small.entries[demo.small.entries.length - 1].id, 'hangs under the last line');
    await rows.filter({ hasText: 'Leaf explained' }).waitFor();

    // fork from a message of the named session, from the palette
    await selectRow(vs, 'Stream the JSONL reader');
    await treeShown(vs, 'Stream the JSONL reader');
    const before = readdirSync(demo.dir).length;
    await vs.runCommand('pi Tree: Fork from Message…', { thenInput: true });
    await vs.page.locator(sel.quickInput.row).filter({ hasText: 'Go with chunked reads' }).waitFor();
    // By keyboard, as a user would: a row's hover (its date) can lie over the next row and take a click.
    const filter = vs.page.locator(sel.quickInput.input);
    await filter.fill('Go with chunked reads');
    await vs.page.locator(sel.quickInput.focusedRow).filter({ hasText: 'Go with chunked reads' }).waitFor();
    await filter.press('Enter');
    const known = [demo.branched.file, demo.fork.file, demo.small.file, file];
    const newFile = await until(() =>
      readdirSync(demo.dir)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(demo.dir, f))
        .find((f) => !known.includes(f)),
    );
    assert.equal(
      readdirSync(demo.dir).filter((f) => f.endsWith('.jsonl')).length,
      before + 1,
      'one new session file beside the source',
    );
    const lines = await vs.pollFile(newFile, (t) => (t.endsWith('\n') ? parse(t) : undefined));
    assert.equal(lines[0].parentSession, demo.branched.file);
    assert.equal(
      lines.some((e) => e.id === demo.ids.streamAsk),
      false,
      'the fork ends before the chosen message',
    );
    assert.equal(
      lines.some((e) => e.id === demo.ids.plan),
      true,
    );
    await vs.screenshot('forked');
  });
});
