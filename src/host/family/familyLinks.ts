// The family links an open tree draws: the session it came from and the forks and clones made from it,
// each at the entry where they part (core/family.ts). Looked up after the tree is on screen and again
// when the session lists change (a new fork); each other session's attach point is found once.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { attachPoint, familyOf, type FamilyScope } from '../../core/listing/family.js';
import type { Session } from '../../core/session/session.js';
import type { SessionInfo, SessionInfoCache } from '../../core/listing/sessionInfo.js';
import type { FamilyLink } from '../../protocol.js';
import type { SessionNames } from '../sessions/sessionNames.js';

export interface FamilyDeps {
  cache(): SessionInfoCache;
  /** The session folders pi-tree lists (the repository): no other folder is looked in. */
  scope(): FamilyScope;
  /** Sessions the sidebar knows (other folders' forks are found through it). */
  known(): SessionInfo[];
  acquire(file: string): Promise<{ session: Session; release: () => void }>;
  /** What each session is called (the sidebar's rule, forks and clones told apart). */
  names: SessionNames;
}

/** A link without its token (the tree that shows it makes one) and the file it leads to. */
export type FoundLink = Omit<FamilyLink, 'token'> & { file: string };

export class FamilyLinks implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  /** The session lists changed: open trees look for their family again. */
  readonly onDidChange = this.emitter.event;
  /** Attach points by "parent\0child" path (a copied path never changes once written). */
  private readonly attach = new Map<string, string | null>();

  constructor(private readonly deps: FamilyDeps) {}

  changed(): void {
    this.emitter.fire();
  }

  private async attachOf(
    parentFile: string,
    childFile: string,
    parent: () => Promise<Session>,
    child: () => Promise<Session>,
  ): Promise<string | null> {
    const key = `${parentFile}\u0000${childFile}`;
    if (this.attach.has(key)) return this.attach.get(key)!;
    const at = await attachPoint((await parent()).index, (await child()).index);
    this.attach.set(key, at);
    return at;
  }

  /** The links of the tree of `file` (its open `session`). */
  async linksFor(session: Session, file: string, signal?: AbortSignal): Promise<FoundLink[]> {
    const parentPath = typeof session.header.parentSession === 'string' ? session.header.parentSession : undefined;
    const fam = await familyOf(file, parentPath, this.deps.cache(), this.deps.known(), signal, this.deps.scope());
    // This session's forks and clones, told apart and counted among themselves (as the sidebar counts them).
    const places = await this.deps.names.placesOf(fam.children, signal);
    const out: FoundLink[] = [];
    const other = async (info: SessionInfo, relation: 'parent' | 'child'): Promise<void> => {
      let held: { session: Session; release: () => void } | undefined;
      const open = async () => (held ??= await this.deps.acquire(info.path)).session;
      try {
        const at =
          relation === 'child'
            ? await this.attachOf(file, info.path, async () => session, open)
            : await this.attachOf(info.path, file, open, async () => session);
        signal?.throwIfAborted();
        out.push({
          file: info.path,
          relation,
          at: at !== null && session.index.get(at) ? at : null,
          title:
            this.deps.names.title(info, 120, relation === 'child' ? places.get(info.path) : undefined) ||
            basename(info.path),
          ...(relation === 'child' ? { kind: places.get(info.path)?.kind ?? 'fork' } : {}),
          fileName: basename(info.path),
          messages: info.messageCount,
          bytes: info.size,
          created: info.created.getTime(),
        });
      } catch (e) {
        if (signal?.aborted) throw e;
        // an unreadable relative is left out of the picture
      } finally {
        held?.release();
      }
    };
    if (fam.parent) await other(fam.parent, 'parent');
    for (const c of fam.children) await other(c, 'child');
    return out;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
