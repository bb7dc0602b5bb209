// Entry ids (design decision 8): pi's shape, 8 lowercase hex characters unique in the file, made with
// nanoid's customAlphabet; every hex digit in every place; retried while taken. nanoid is loaded when
// the first id is made, so the CLI's read commands never load it (nor the Web Crypto it uses).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { newEntryId, stableEntryId } from '../../../src/core/format/ids.js';
import { tempDir } from '../../support/tmp.js';

const ROOT = join(__dirname, '..', '..', '..');
const none = { has: () => false };

describe('entry ids', () => {
  it('are 8 lowercase hex characters, each of the 16 digits in each place', () => {
    const seen = Array.from({ length: 8 }, () => new Set<string>());
    const ids = new Set<string>();
    for (let i = 0; i < 4000; i++) {
      const id = newEntryId(none);
      assert.match(id, /^[0-9a-f]{8}$/);
      ids.add(id);
      [...id].forEach((c, k) => seen[k].add(c));
    }
    assert.ok(ids.size > 3990, `${ids.size} distinct of 4000`);
    assert.deepEqual(
      seen.map((s) => s.size),
      [16, 16, 16, 16, 16, 16, 16, 16],
    );
  });

  it('are retried while taken, and refused when 1000 tries are all taken', () => {
    let asked = 0;
    const id = newEntryId({ has: () => ++asked <= 5 });
    assert.equal(asked, 6, 'the sixth was free');
    assert.match(id, /^[0-9a-f]{8}$/);
    assert.throws(() => newEntryId({ has: () => true }), /Could not find a free entry id/);
  });

  it('stable ids (v1 migration) stay what they were', () => {
    assert.equal(stableEntryId('seed', 1, new Set()), stableEntryId('seed', 1, new Set()));
    assert.match(stableEntryId('seed', 1, new Set()), /^[0-9a-f]{8}$/);
  });

  it("the CLI's read commands load no id maker; a command that writes an entry does", () => {
    const dir = tempDir();
    const file = join(dir, 'session.jsonl');
    copyFileSync(join(ROOT, 'test', 'fixtures', 'real', 'pi-mono-before-compaction.jsonl'), file);
    const probe = join(dir, 'probe.cjs');
    // nanoid takes its randomness from Web Crypto, which Node loads on first use.
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write(`@@webcrypto ${process.moduleLoadList.includes('NativeModule internal/crypto/webcrypto')}\\n`));",
    );
    const webcrypto = (...args: string[]) => {
      const r = spawnSync(process.execPath, ['-r', probe, join(ROOT, 'dist', 'cli.js'), ...args], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return /@@webcrypto (true|false)/.exec(r.stderr)?.[1];
    };
    for (const read of [
      ['stats', file],
      ['context', file],
      ['tree', file],
    ])
      assert.equal(webcrypto(...read), 'false', read[0]);
    assert.equal(webcrypto('label', file, '8ea24abc', 'checked'), 'true', 'label makes an entry id');
  });
});
