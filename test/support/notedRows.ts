// The rows of a session's tree in every filter, read plainly and with the rows noted while the file is
// read (src/cli/tree/rowNotes.ts): what the tests of the noting compare.
import assert from 'node:assert/strict';
import { safeText } from '../../src/cli/safeText.js';
import { callTexts } from '../../src/cli/tree/callNotes.js';
import { RowFacts } from '../../src/cli/tree/rowFacts.js';
import { noteRows } from '../../src/cli/tree/rowNotes.js';
import { Session } from '../../src/core/session/session.js';
import { FILTER_MODES, streamTree } from '../../src/cli/tree/treeText.js';

/**
 * Every row of every filter, as plain values; and that each row's text writes as the bytes it reads as,
 * and to a terminal as safeText escapes it (a text written as bytes must need no escaping).
 */
async function rows(s: Session, noted?: RowFacts): Promise<string[]> {
  const out: string[] = [];
  for (const mode of FILTER_MODES) {
    out.push(`-- ${mode}`);
    await streamTree(
      s,
      mode,
      (r) => {
        const text = r.text();
        // (as the CLI writes it: bytes from the arena, or the string through its escaping)
        const written = (escaped: (x: string) => string) => {
          let w = '';
          r.facts.writeText(
            r.i,
            { add: (x) => void (w += x), addBytes: (b, from, to) => void (w += b.toString('utf8', from, to)) },
            escaped,
          );
          return w;
        };
        const raw = written((x) => x);
        assert.ok(raw && text.includes(raw), `row ${r.i}: ${raw} in ${text}`);
        assert.equal(written(safeText), safeText(raw), `row ${r.i}: ${raw} escaped`);
        out.push(
          JSON.stringify([r.i, r.prefix, r.marker, text, r.depth, r.onPath, r.isLeaf, r.label, r.visibleParent]),
        );
      },
      undefined,
      noted,
    );
  }
  return out;
}

/**
 * The tree of `file` read plainly and with its rows noted while read; and how many records were noted
 * (how many from their bytes, how many call texts from their bytes).
 * `chunkBytes`: the noted texts' chunk size (small: texts cross many chunks).
 */
export async function both(file: string, chunkBytes?: number) {
  const plain = await rows(await Session.open(file));
  const facts = new RowFacts(chunkBytes);
  const observe = noteRows(facts);
  const calls = callTexts.fromBytes;
  const s = await Session.open(file, { onMessageLine: observe });
  let noted = 0;
  for (let i = 0; i < s.index.count; i++) if (facts.has(i)) noted++;
  let messages = 0;
  for (let i = 0; i < s.index.count; i++) if (s.index.typeOf(i) === 'message') messages++;
  return {
    plain,
    withNotes: await rows(s, facts),
    noted,
    messages,
    fromBytes: observe.fromBytes,
    callsFromBytes: callTexts.fromBytes - calls,
  };
}
