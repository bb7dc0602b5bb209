// The models, tokens and cost line of a sidebar row's tooltip. It takes a read of the whole session, so
// it is read once per size and mtime of the file (a hover over a big session read all of it each time,
// and on after the hover had gone), and not at all past TOTALS_MAX_BYTES.
import type * as vscode from 'vscode';
import { computeStats } from '../../core/context/stats.js';
import { noteUsage, UsageColumns } from '../../core/context/usageColumns.js';
import type { SessionInfo } from '../../core/listing/sessionInfo.js';
import { Session } from '../../core/session/session.js';

/** Past this size a row's tooltip leaves out the models, tokens and cost. */
const TOTALS_MAX_BYTES = 64 * 1024 * 1024;
/** Lines kept; past it the cache starts again (a listing of thousands is hovered a few rows at a time). */
const KEEP = 500;

export class RowTotals {
  /** Tooltip lines by file, with the size and mtime they were read at. */
  private readonly lines = new Map<string, { key: string; line: string }>();

  /** The line for `i`, or undefined when it could not be read (the hover went, or the file is mid-write). */
  async of(i: SessionInfo, token: vscode.CancellationToken): Promise<string | undefined> {
    const key = `${i.size}:${i.mtimeMs}`;
    const known = this.lines.get(i.path);
    if (known?.key === key) return known.line;
    if (i.size > TOTALS_MAX_BYTES) return `Models, tokens and cost: open the tree (${Math.round(i.size / 1e6)} MB).\n`;
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    try {
      const noted = new UsageColumns();
      const s = await computeStats(
        await Session.open(i.path, { signal: ac.signal, onMessageLine: noteUsage(noted) }),
        ac.signal,
        noted,
      );
      const line = `Models: ${s.models.map((m) => `${m.provider}/${m.model}`).join(', ') || '—'}\nTokens: ${s.tokens.total.toLocaleString()} · Cost: $${s.cost.toFixed(4)}\n`;
      if (this.lines.size >= KEEP) this.lines.clear();
      this.lines.set(i.path, { key, line });
      return line;
    } catch {
      return undefined;
    }
  }
}
