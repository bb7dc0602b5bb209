// An open tree's connection to the pi running its session: subscribed while the panel is open, so the
// header can say "connected to pi <pid>" and whether pi is busy. It connects when the registry sees a
// bridge for the file and drops back to file mode, quietly, when pi exits, crashes or switches to
// another session. A pi that does not answer (stopped with Ctrl+Z) stays this session's pi, shown as
// not free (busy, unresponsive), and no connection is made to it until it answers again. No vscode import.
import { BridgeClient } from '../../core/piClient/client.js';
import type { BridgeEvent } from '../../core/piClient/protocol.js';
import { isUnresponsive, type BridgeRegistry } from './bridgeRegistry.js';

export interface LiveState {
  pid: number;
  busy: boolean;
  piVersion?: string;
  leafId: string | null;
  /** pi runs the session but does not answer (stopped, blocked): busy is true as well. */
  unresponsive?: boolean;
}

export class LiveSession {
  private client: BridgeClient | undefined;
  private connecting: Promise<void> | undefined;
  private current: LiveState | undefined;
  private readonly listeners = new Set<(s: LiveState | undefined) => void>();
  private readonly sub: { dispose(): void };
  private disposed = false;

  constructor(
    readonly file: string,
    private readonly registry: BridgeRegistry,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.sub = registry.onDidChange(() => void this.sync());
    void this.sync();
  }

  get state(): LiveState | undefined {
    return this.current;
  }

  onDidChange(fn: (s: LiveState | undefined) => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  /** Connects to the registry's bridge for the file, unless connected to it already. */
  sync(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = this.syncNow().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async syncNow(): Promise<void> {
    if (this.disposed) return;
    const info = this.registry.get(this.file);
    if (info && isUnresponsive(info)) {
      // Still pi's session; a new connection would only wait in pi's accept queue.
      const s = this.current;
      this.set({
        pid: info.record.pid,
        busy: true,
        unresponsive: true,
        piVersion: s?.piVersion,
        leafId: s?.leafId ?? null,
      });
      return;
    }
    if (this.client && !this.client.closed && (!info || info.record.pid === this.client.record.pid)) {
      if (this.current?.unresponsive) {
        // It answers again: its state, on the connection it kept.
        const st = await this.client.state().catch(() => undefined);
        if (st) this.set({ pid: st.pid, busy: st.busy, piVersion: st.piVersion, leafId: st.leafId });
      }
      return;
    }
    if (!info) {
      if (this.current?.unresponsive && !this.client) this.set(undefined);
      return;
    }
    let client: BridgeClient;
    try {
      client = await BridgeClient.connect(info.record);
    } catch (e) {
      this.log(`pi ${info.record.pid}: no connection (${(e as Error).message}); file mode`);
      return;
    }
    if (this.disposed) return client.close();
    this.client?.close();
    this.client = client;
    client.onClose((err) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.log(`pi ${client.record.pid} disconnected (${err?.code ?? 'closed'}); file mode`);
      this.set(undefined);
      // pi may have switched to another file or quit: the registry tells (and may hand a new bridge).
      void this.registry.rescan();
    });
    try {
      const st = await client.subscribe((ev) => this.onEvent(ev));
      this.set({ pid: st.pid, busy: st.busy, piVersion: st.piVersion, leafId: st.leafId });
      this.log(`connected to pi ${st.pid} (${st.piVersion}) for ${this.file}`);
    } catch (e) {
      this.log(`pi ${info.record.pid}: subscribe failed (${(e as Error).message}); file mode`);
      client.close();
    }
  }

  private onEvent(ev: BridgeEvent): void {
    const s = this.current;
    if (!s) return;
    switch (ev.event) {
      case 'busy':
      case 'idle':
        // (an event: pi answers again)
        if (s.busy !== (ev.event === 'busy') || s.unresponsive)
          this.set({ ...s, busy: ev.event === 'busy', unresponsive: undefined });
        return;
      case 'leafChanged':
        this.current = { ...s, leafId: ev.leafId };
        return;
      case 'sessionSwitched':
      case 'sessionClosed':
        // The connection ends next; the header says so at once.
        this.set(undefined);
        return;
    }
  }

  private set(s: LiveState | undefined): void {
    const before = this.current;
    this.current = s;
    if (before?.pid === s?.pid && before?.busy === s?.busy && !!before?.unresponsive === !!s?.unresponsive) return;
    for (const l of [...this.listeners]) l(s);
  }

  dispose(): void {
    this.disposed = true;
    this.sub.dispose();
    this.listeners.clear();
    this.client?.close();
    this.client = undefined;
  }
}
