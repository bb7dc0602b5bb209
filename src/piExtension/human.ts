// `/tree-bridge …` typed by a person in pi's TUI: the same operations as the socket offers.
import type { BridgeOp } from '../core/piClient/protocol.js';

export const USAGE = `usage:
  /tree-bridge goto ID [--summary] [--replace] [--label TEXT] [-- INSTRUCTIONS]
  /tree-bridge fork USER_ENTRY_ID
  /tree-bridge clone [ID]
  /tree-bridge label ID [TEXT]
  /tree-bridge name TEXT
  /tree-bridge compact [INSTRUCTIONS]
  /tree-bridge status`;

type Parsed = ({ op: BridgeOp } & Record<string, unknown>) | { error: string };

export function parseHumanCommand(sub: string, rest: string): Parsed {
  const words = rest ? rest.split(/\s+/) : [];
  switch (sub) {
    case 'goto': {
      const [targetId, ...more] = words;
      if (!targetId) return { error: 'goto needs an entry id' };
      const out: Record<string, unknown> = { op: 'goto', targetId };
      for (let i = 0; i < more.length; i++) {
        const w = more[i];
        if (w === '--summary') out.summarize = true;
        else if (w === '--replace') out.replaceInstructions = true;
        else if (w === '--label' && i + 1 < more.length) out.label = more[++i];
        else if (w === '--') {
          out.customInstructions = more.slice(i + 1).join(' ');
          out.summarize = true;
          break;
        } else return { error: `goto: unexpected "${w}"` };
      }
      return out as Parsed;
    }
    case 'fork':
      return words.length === 1 ? { op: 'fork', entryId: words[0] } : { error: 'fork needs one user message id' };
    case 'clone':
      return words.length <= 1 ? { op: 'clone', entryId: words[0] } : { error: 'clone takes at most one entry id' };
    case 'label': {
      const [entryId, ...text] = words;
      return entryId
        ? { op: 'label', entryId, label: text.join(' ') || undefined }
        : { error: 'label needs an entry id' };
    }
    case 'name':
      return rest ? { op: 'name', name: rest } : { error: 'name needs a text' };
    case 'compact':
      return { op: 'compact', customInstructions: rest || undefined };
    default:
      return { error: `unknown subcommand "${sub}"` };
  }
}
