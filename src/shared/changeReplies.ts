// What the webview is told about code changes (replies of src/protocol.ts, re-exported there): an
// entry's file changes, the files a branch changes, and the code at a node (checkpoints). Paths are for
// display only; the webview names changes by entry id and index, never by path.

/** One file change of an entry, as the details pane lists it (no file contents). */
export interface ChangeView {
  /** Position in the entry's changes: what openChange names. */
  index: number;
  tool: 'edit' | 'write' | 'bash';
  path: string;
  /** bash: what the command does to the file. */
  op?: 'write' | 'delete' | 'move';
  added: number;
  removed: number;
  /** The tool reported an error: the file was probably left as it was. */
  failed?: boolean;
  /** A diff can be shown (edit and write; not bash). */
  diff: boolean;
}

export interface ChangesReply {
  /** The assistant entry whose tool calls these are (the entry itself, or the call a tool result answers). */
  entryId: string;
  changes: ChangeView[];
}

export interface BranchFile {
  path: string;
  changes: number;
  failed: number;
  tools: ('edit' | 'write' | 'bash')[];
  added: number;
  removed: number;
  firstEntryId: string;
  lastEntryId: string;
}

export interface BranchFilesReply {
  /** Entries on the branch that change files. */
  entries: number;
  files: BranchFile[];
}

/** How the code at a node is known and how it differs from the files now. */
export interface CodeStateReply {
  /** snapshot: a checkpoint; snapshot+calls: one plus recorded calls after it; calls: the session's record only; none: nothing known. */
  how: 'snapshot' | 'snapshot+calls' | 'calls' | 'none';
  /** Files that differ (paths relative to the session's folder, or absolute outside it). */
  files: { path: string; status: 'added' | 'modified' | 'deleted' | 'unknown' }[];
  notes: string[];
  /**
   * What restoring the code here would do, in the words Move here and the restore use (planWords.ts):
   * `words` the tally, `files` the count it starts with, `kept` the other files that differ, which
   * only the user changed (a restore keeps them).
   */
  restore?: { words: string; files: number; kept: number };
  /** Files the checkpoint left out (too large, nested repositories, special files), the first few named. */
  skipped?: { count: number; paths: string[] };
}
