// The compare view's use of checkpoints: each side's files as the code itself differs from the
// common ancestor (bash changes included, where snapshots exist), and both nodes' code in the multi-file
// diff editor, across branches and across the sessions of a family.
import { diffCode } from '../../core/checkpoints/index.js';
import type { CompareCode } from '../compare/comparePanel.js';
import type { CodeRestore } from './codeRestore.js';

export function compareCode(code: () => CodeRestore): CompareCode {
  return {
    async exactFiles(session, from, to) {
      const sc = code().code(session);
      if (!sc.checkpoints.byEntry.size) return undefined;
      const changes = await diffCode(sc, from, to);
      return changes.map((c) => c.key);
    },
    showDiff: (a, b) => code().showDiff(a.session, a.id, b),
  };
}
