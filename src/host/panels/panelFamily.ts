// The family link nodes of one open tree: looked up after the tree is on screen and whenever the
// family changes, sent only when they changed. The webview names a link by an opaque token, never by a
// path; a file keeps its token while the panel lives, so a link that stays keeps its node.
import { nanoid } from 'nanoid';
import { basename } from 'node:path';
import type { Session } from '../../core/session/session.js';
import type { FamilyLink } from '../../protocol.js';
import type { FamilyLinks } from '../family/familyLinks.js';
import { log } from '../platform/log.js';

export interface PanelFamilyDeps {
  family: FamilyLinks;
  file: string;
  /** The open session, once the webview can take links (else nothing is looked up). */
  session(): Session | undefined;
  /** Posts the links in order with the other deltas. */
  send(links: FamilyLink[]): void;
  signal: AbortSignal;
}

export class PanelFamily {
  /** Links sent to the webview, by their token. */
  private links = new Map<string, { file: string; at: string | null }>();
  private timer: NodeJS.Timeout | undefined;
  /** What the last family message said (an unchanged family is not sent again). */
  private sent: string | undefined;

  constructor(private readonly deps: PanelFamilyDeps) {}

  schedule(delay = 300): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.send(), delay);
  }

  /** A snapshot replaced the webview's model: the links (kept apart from it) are sent again. */
  resend(): void {
    this.sent = undefined;
    this.schedule(0);
  }

  /** The file and entry a token names; undefined when the family changed since. */
  resolve(token: string): { file: string; at: string | null } | undefined {
    return this.links.get(token);
  }

  private async send(): Promise<void> {
    const s = this.deps.session();
    if (!s || this.deps.signal.aborted) return;
    try {
      const found = await this.deps.family.linksFor(s, this.deps.file, this.deps.signal);
      const said = JSON.stringify(found);
      if (said === this.sent || (!found.length && this.sent === undefined)) return;
      this.sent = said;
      const links = new Map<string, { file: string; at: string | null }>();
      const views = found.map(({ file, ...l }) => {
        const token = [...this.links].find(([, v]) => v.file === file)?.[0] ?? nanoid(12);
        links.set(token, { file, at: l.at });
        return { token, ...l };
      });
      this.links = links;
      this.deps.send(views);
    } catch (e) {
      if (!this.deps.signal.aborted) log().warn(`family of ${basename(this.deps.file)}: ${String(e)}`);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
