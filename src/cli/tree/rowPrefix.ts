// The connectors and indentation in front of a row of pi's /tree text. The gutters of the branch points
// above a row are a shared list (newest first): a branch point adds one node instead of copying the
// list, so deep trees cost memory in proportion to their branch points, not to depth × branch points.

export interface Gutter {
  pos: number;
  show: boolean;
  next: Gutter | null;
}

/** Prefixes of rows; the rows of a chain share one (the last one made is kept). */
export class RowPrefixes {
  private g: Gutter | null | undefined = undefined;
  private indent = -1;
  private connector = '';
  private prefix = '';

  of(g: Gutter | null, displayIndent: number, connector: string): string {
    if (this.g === g && this.indent === displayIndent && this.connector === connector) return this.prefix;
    const at: (boolean | undefined)[] = [];
    // The oldest gutter at a position wins, as a search from the oldest finds it.
    for (let x = g; x; x = x.next) if (x.pos < displayIndent) at[x.pos] = x.show;
    const connectorPos = connector ? displayIndent - 1 : -1;
    let prefix = '';
    for (let level = 0; level < displayIndent; level++) {
      const show = at[level];
      if (show !== undefined) prefix += show ? '│  ' : '   ';
      else if (connector && level === connectorPos) prefix += connector;
      else prefix += '   ';
    }
    this.g = g;
    this.indent = displayIndent;
    this.connector = connector;
    this.prefix = prefix;
    return prefix;
  }
}
