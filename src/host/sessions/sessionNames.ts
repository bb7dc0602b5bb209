// What each session is called, by core/listing/sessionTitle.ts's one rule, with the facts the rule needs
// beyond a session's own: whether a fork is a fork or a clone (core/listing/forkKind.ts, decided once
// per file) and which of its source's it is. The sidebar keeps the places of what it lists; the tabs,
// the family's link nodes and the compare view ask here, so a session reads the same everywhere. A fork
// that holds no user message yet is named by its source's name or first message (sourceText).
import type { SessionInfo } from '../../core/listing/sessionInfo.js';
import type { Memento } from 'vscode';
import { ForkKinds, type ForkKind } from '../../core/listing/forkKind.js';
import { NO_MESSAGES } from '../../core/listing/sessionInfo.js';
import { familyPlaces, infoTitle, type FamilyPlace } from '../../core/listing/sessionTitle.js';

/** Where the kinds of the sessions pi-tree made are kept (path → fork | clone). */
const NOTED_KEY = 'piTree.forkKinds';
const NOTED_MAX = 2000;

export class SessionNames {
  private readonly kinds = new ForkKinds();
  private places = new Map<string, FamilyPlace>();
  /** The listed sessions by path: what a fork without messages is named by (its source's text). */
  private listed = new Map<string, SessionInfo>();
  private store: Memento | undefined;

  /** Keeps what pi-tree made (note) across restarts in `store`, and reads what it kept. */
  useStore(store: Memento): void {
    this.store = store;
    for (const [path, kind] of Object.entries(store.get<Record<string, ForkKind>>(NOTED_KEY, {})))
      if (kind === 'fork' || kind === 'clone') this.kinds.note(path, kind);
  }

  /** pi-tree made `path` as a fork or a clone (the file alone cannot always tell: core/listing/forkKind.ts). */
  note(path: string, kind: ForkKind): void {
    this.kinds.note(path, kind);
    if (!this.store) return;
    const kept = Object.entries({ ...this.store.get<Record<string, ForkKind>>(NOTED_KEY, {}), [path]: kind });
    void this.store.update(NOTED_KEY, Object.fromEntries(kept.slice(-NOTED_MAX)));
  }

  /**
   * Decides the kinds of `infos` that came from another session (the sidebar's whole listing), then their
   * places; true when any place changed.
   */
  async update(infos: readonly SessionInfo[], signal?: AbortSignal): Promise<boolean> {
    const next = await this.placesOf(infos, signal);
    this.listed = new Map(infos.map((i) => [i.path, i]));
    const changed = next.size !== this.places.size || [...next].some(([p, v]) => !samePlace(this.places.get(p), v));
    this.places = next;
    return changed;
  }

  /** The places of `infos` among themselves (one family's sessions, for sessions the sidebar does not list). */
  async placesOf(infos: readonly SessionInfo[], signal?: AbortSignal): Promise<Map<string, FamilyPlace>> {
    // One file at a time (each is read once, ever): a folder of many forks does not open them all at once.
    for (const i of infos)
      if (i.parentSessionPath && this.kinds.peek(i.path) === undefined) await this.kinds.kindOf(i, signal);
    return familyPlaces(infos, (p) => this.kinds.peek(p));
  }

  /** The place the sidebar's listing gave `path`, if it lists it as a fork or clone. */
  place(path: string): FamilyPlace | undefined {
    return this.places.get(path);
  }

  /** A listed session's title; `place` when known from elsewhere (its family), else the listing's. */
  title(info: SessionInfo, max = 80, place = this.place(info.path)): string {
    return infoTitle(info, max, place, info.parentSessionPath ? this.sourceText(info.parentSessionPath) : undefined);
  }

  /**
   * The name or first message of the listed session `path`, for a fork of it that holds no message yet;
   * a source that is itself such a fork reads as its own source (a short chain: at most 20 steps).
   */
  sourceText(path: string): string | undefined {
    for (let i = this.listed.get(path), n = 0; i && n < 20; i = this.listed.get(i.parentSessionPath ?? ''), n++) {
      if (i.name) return i.name;
      if (i.firstMessage !== NO_MESSAGES) return i.firstMessage;
    }
    return undefined;
  }
}

function samePlace(a: FamilyPlace | undefined, b: FamilyPlace): boolean {
  return !!a && a.kind === b.kind && a.n === b.n && a.of === b.of;
}
