// The restore's preview (the multi-file diff editor, a tab by its label) closed by the user while its
// choice is open: the choice is about what that preview showed, so closing it cancels the choice
// (restoreChoice.ts), as closing a merge editor leaves the merge undone, and the status bar says so.
import * as vscode from 'vscode';

/**
 * `decide` (given `closed`, which aborts when the preview tab `label` is closed); a closed preview
 * cancels, said in the status bar.
 */
export async function decideBesidePreview<T>(label: string, decide: (closed: AbortSignal) => Promise<T>): Promise<T> {
  const closed = watchPreviewClosed(label);
  try {
    return await decide(closed.signal);
  } finally {
    closed.dispose();
    if (closed.signal.aborted) sayPreviewClosed();
  }
}

/** Watches for the tab whose label starts with `label` to close; `signal` aborts when it does. */
function watchPreviewClosed(label: string): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const sub = vscode.window.tabGroups.onDidChangeTabs((e) => {
    if (e.closed.some((t) => t.label.startsWith(label))) ac.abort();
  });
  return { signal: ac.signal, dispose: () => sub.dispose() };
}

/** Said in the status bar when a closed preview cancelled the restore. */
function sayPreviewClosed(): void {
  vscode.window.setStatusBarMessage(
    `$(close) pi Tree: Restore cancelled, its preview was closed; nothing was written`,
    10_000,
  );
}
