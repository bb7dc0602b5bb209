// Branch summaries and compaction for the tree panels. Until a model provider is configured, the user
// writes the summary text; the branch being left is still recorded as pi records it.
import type * as vscode from 'vscode';
import type { SummaryService } from './treePanel.js';

export function createSummaryService(_context: vscode.ExtensionContext): SummaryService {
  return {
    available: () => false,
    previewBranch: async () => {
      throw new Error('No summary model is configured: write the summary yourself, or set piTree.summary.provider.');
    },
    commitBranch: async (session, targetLeaf, summary) => {
      const r = await session.moveTo(targetLeaf, { summary, details: { readFiles: [], modifiedFiles: [] }, fromHook: false });
      return { leafId: r.leafId };
    },
    cancel: () => {},
    previewCompaction: async () => {
      throw new Error('No summary model is configured (piTree.summary.provider).');
    },
    commitCompaction: async () => {
      throw new Error('No summary model is configured (piTree.summary.provider).');
    },
  };
}
