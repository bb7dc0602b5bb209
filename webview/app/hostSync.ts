// Host → webview sync: a snapshot that arrives in parts is applied once whole, deltas older than the
// snapshot held (by rev) are dropped, and each message becomes one typed call on the app.
import type { FamilyLink, HostMessage, InvokeAction, NodeView, SessionMeta } from '../../src/protocol';

export type Snapshot = Extract<HostMessage, { type: 'snapshot' }>;

export interface SyncTarget {
  onSnapshot(m: Snapshot): void;
  onAppended(nodes: NodeView[]): void;
  onLeafMoved(leafId: string | null): void;
  onLabelChanged(targetId: string, label: string | undefined): void;
  onRenamed(name: string | undefined): void;
  onMeta(meta: SessionMeta): void;
  onFamily(links: FamilyLink[]): void;
  onInvoke(action: InvokeAction, id: string | undefined, text: string | undefined): void;
  /** A big snapshot is arriving in parts: `loaded` of `total` nodes so far. */
  onLoading?(loaded: number, total: number): void;
}

export class HostSync {
  /** Revision of the state held; deltas below it are already in it. */
  private rev = -1;
  /** A snapshot arriving in parts. */
  private partial: { m: Snapshot; nodes: NodeView[]; total: number } | undefined;

  constructor(private readonly target: SyncTarget) {}

  receive(m: HostMessage): void {
    if (m.type === 'snapshot' && m.total !== undefined && m.total > m.nodes.length) {
      this.partial = { m, nodes: [...m.nodes], total: m.total };
      this.target.onLoading?.(m.nodes.length, m.total);
      return;
    }
    if (m.type === 'snapshotPart') {
      const p = this.partial;
      if (!p || p.m.rev !== m.rev) return;
      for (const n of m.nodes) p.nodes.push(n);
      if (p.nodes.length < p.total) return this.target.onLoading?.(p.nodes.length, p.total);
      this.partial = undefined;
      return this.receive({ ...p.m, nodes: p.nodes, total: undefined });
    }
    switch (m.type) {
      case 'snapshot':
        this.rev = m.rev;
        return this.target.onSnapshot(m);
      case 'invoke':
        return this.target.onInvoke(m.action, m.id, m.text);
      case 'reply':
        return;
    }
    if (typeof m.rev === 'number') {
      if (m.rev < this.rev) return;
      this.rev = m.rev;
    }
    switch (m.type) {
      case 'appended':
        return this.target.onAppended(m.nodes);
      case 'leafMoved':
        return this.target.onLeafMoved(m.leafId);
      case 'labelChanged':
        return this.target.onLabelChanged(m.targetId, m.label);
      case 'renamed':
        return this.target.onRenamed(m.name);
      case 'meta':
        return this.target.onMeta(m.meta);
      case 'family':
        return this.target.onFamily(m.links);
    }
  }
}
