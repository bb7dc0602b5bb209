// Host → webview sync: a snapshot that arrives in parts is applied once whole (packed parts are
// parsed as they arrive; a big session's first screen is shown before it), deltas older than the snapshot held (by rev) are dropped, and each message
// becomes one typed call on the app.
import { SharedValues, unpackNodes } from '../../src/packedNodes';
import type { FamilyLink, HostMessage, InvokeAction, NodeView, SessionMeta } from '../../src/protocol';

export type Snapshot = Extract<HostMessage, { type: 'snapshot' }> & { nodes: NodeView[]; packed?: undefined };

export type FirstScreen = Extract<HostMessage, { type: 'firstScreen' }>;

export interface SyncTarget {
  onSnapshot(m: Snapshot): void;
  /** A big session's first screen, drawn until its snapshot is whole. */
  onFirstScreen?(m: FirstScreen): void;
  onAppended(nodes: NodeView[], leafId?: string | null): void;
  onLeafMoved(leafId: string | null): void;
  onLabelChanged(targetId: string, label: string | undefined): void;
  onRenamed(name: string | undefined): void;
  onMeta(meta: SessionMeta): void;
  onFamily(links: FamilyLink[]): void;
  /** Entries with a checkpoint; `off`: why capture turned itself off. */
  onCodeMarks?(ids: string[], off: string | undefined): void;
  onInvoke(action: InvokeAction, id: string | undefined, text: string | undefined): void;
  /** A big snapshot is arriving in parts: `loaded` of `total` nodes so far. */
  /** `total` undefined: the count is not known yet (the session is still being read). */
  onLoading?(loaded: number, total: number | undefined): void;
}

export class HostSync {
  /** Revision of the state held; deltas below it are already in it. */
  private rev = -1;
  /** A snapshot arriving in parts; `shared`: the values its parts' nodes share (src/packedNodes.ts). */
  private partial: { m: Snapshot; nodes: NodeView[]; total: number; shared: SharedValues } | undefined;

  constructor(private readonly target: SyncTarget) {}

  receive(m: HostMessage): void {
    if (m.type === 'snapshot') {
      const shared = new SharedValues();
      const s: Snapshot = m.packed
        ? { ...m, nodes: unpackNodes(m.packed, shared), packed: undefined }
        : { ...m, nodes: m.nodes };
      if (s.total !== undefined && s.total > s.nodes.length) {
        this.partial = { m: s, nodes: [...s.nodes], total: s.total, shared };
        this.target.onLoading?.(s.nodes.length, s.total);
        return;
      }
      this.rev = s.rev;
      return this.target.onSnapshot(s);
    }
    if (m.type === 'firstScreen') {
      // Only before a snapshot at least as new is held (a first screen comes before its snapshot).
      if (m.rev <= this.rev) return;
      this.target.onFirstScreen?.(m);
      return this.target.onLoading?.(0, m.total);
    }
    if (m.type === 'snapshotPart') {
      const p = this.partial;
      if (!p || p.m.rev !== m.rev) return;
      for (const n of m.packed ? unpackNodes(m.packed, p.shared) : m.nodes) p.nodes.push(n);
      if (p.nodes.length < p.total) return this.target.onLoading?.(p.nodes.length, p.total);
      this.partial = undefined;
      this.rev = p.m.rev;
      return this.target.onSnapshot({ ...p.m, nodes: p.nodes, total: undefined });
    }
    switch (m.type) {
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
        return this.target.onAppended(m.nodes, m.leafId);
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
      case 'codeMarks':
        return this.target.onCodeMarks?.(m.ids, m.off);
    }
  }
}
