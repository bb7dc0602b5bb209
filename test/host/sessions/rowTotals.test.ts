import assert from 'node:assert/strict';
import { copyFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SessionInfo } from '../../../src/core/listing/sessionInfo.js';
import { RowTotals } from '../../../src/host/sessions/rowTotals.js';
import { tempDir } from '../../support/tmp.js';

const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) } as never;

function infoOf(path: string): SessionInfo {
  const st = statSync(path);
  return { path, size: st.size, mtimeMs: st.mtimeMs } as SessionInfo;
}

describe('a sidebar row tooltip totals', () => {
  it('reads the models, tokens and cost of a real session once per size and mtime', async () => {
    const file = join(tempDir(), 's.jsonl');
    copyFileSync(join(__dirname, '..', '..', 'fixtures', 'real', 'pi-mono-before-compaction.jsonl'), file);
    const info = infoOf(file);
    const totals = new RowTotals();
    const line = await totals.of(info, token);
    assert.match(line ?? '', /^Models: \S+\/\S+.*\nTokens: [\d,]+ · Cost: \$\d+\.\d{4}\n$/);
    unlinkSync(file);
    // The same size and mtime: the kept line, without reading the (now gone) file.
    assert.equal(await totals.of(info, token), line);
    // A file that changed is read again; gone, it gives no line rather than an error.
    assert.equal(await totals.of({ ...info, mtimeMs: info.mtimeMs + 1 }, token), undefined);
  });

  it('leaves a session past 64 MB to the tree', async () => {
    const line = await new RowTotals().of(
      { path: '/nonexistent.jsonl', size: 300e6, mtimeMs: 1 } as SessionInfo,
      token,
    );
    assert.equal(line, 'Models, tokens and cost: open the tree (300 MB).\n');
  });
});
