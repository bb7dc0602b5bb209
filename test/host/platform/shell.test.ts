import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findOnPath, shellQuote } from '../../../src/host/platform/shell.js';
import { tempDir } from '../../support/tmp.js';

describe('continue in pi: finding pi and quoting', () => {
  it('finds an executable on PATH, not a plain file', async () => {
    const d = tempDir();
    writeFileSync(join(d, 'pi'), '#!/bin/sh\n');
    chmodSync(join(d, 'pi'), 0o755);
    writeFileSync(join(d, 'notexec'), '');
    assert.equal(await findOnPath('pi', { PATH: `/nope:${d}` }), join(d, 'pi'));
    assert.equal(await findOnPath('notexec', { PATH: d }), undefined);
    assert.equal(await findOnPath('pi', { PATH: '' }), undefined);
  });
  it('quotes paths with spaces and quotes for sh', () => {
    assert.equal(shellQuote('/a/b.jsonl', false), '/a/b.jsonl');
    assert.equal(shellQuote("/a b/it's.jsonl", false), "'/a b/it'\\''s.jsonl'");
    assert.equal(shellQuote('C:\\a b\\x.jsonl', true), '"C:\\a b\\x.jsonl"');
  });
});
