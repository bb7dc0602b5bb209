// A pi 1.6.0 session holding values nested `depth` levels deep (JSON.parse reads any depth; JSON.stringify
// and recursive walks overflow the stack past a few thousand): a tool call's arguments, a tool result's
// details, a custom entry's data, a custom message's details, a model change and a thinking level. The
// builder writes placeholders that are then replaced by the nested text (JSON.stringify could not write it).
import { SessionBuilder } from './sessionBuilder.js';

/** `[[[…]]]`, `depth` levels. */
export const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
/** `{"a":{"a":…1…}}`, `depth` levels. */
export const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const ARR = '@deep-array@';
const OBJ = '@deep-object@';

export interface DeepSession {
  text: string;
  /** user, assistant (calls lookup and bash), the two tool results, custom, custom message, model change, thinking level, last user */
  ids: { u1: string; a1: string; r1: string; r2: string; k1: string; c1: string; m1: string; t1: string; u2: string };
}

export function deepSession(depth: number): DeepSession {
  const b = new SessionBuilder({ cwd: '/w' });
  const u1 = b.user('look it up');
  const a1 = b.assistant({
    text: 'looking',
    calls: [
      { name: 'lookup', id: 'call_lookup', args: { query: OBJ } },
      { name: 'bash', id: 'call_bash', args: { command: 'ls', extra: ARR } },
    ],
  });
  const r1 = b.toolResult('call_lookup', 'lookup', 'found it', { details: ARR });
  const r2 = b.toolResult('call_bash', 'bash', 'a.ts');
  const k1 = b.custom('ext.state', ARR);
  const c1 = b.customMessage('a note', 'ext.note', ARR);
  const m1 = b.modelChange(ARR);
  const t1 = b.thinking(ARR);
  const u2 = b.user('and then?');
  const text = b.text().replaceAll(`"${ARR}"`, deepArray(depth)).replaceAll(`"${OBJ}"`, deepObject(depth));
  return { text, ids: { u1, a1, r1, r2, k1, c1, m1, t1, u2 } };
}
