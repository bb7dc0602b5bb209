// The family links the host sends (the session this one came from, forks and clones of it) as link
// nodes in the model, hung under the entry where the sessions part: the graph, the outline, find and
// the keyboard treat them like entries. They are not entries: their ids start with `link:` and entry
// actions on them open the linked session instead.
import type { FamilyLink, NodeView } from '../../src/protocol';
import type { TreeModel } from '../model/treeModel';

export const LINK_PREFIX = 'link:';

export function isLink(n: NodeView | undefined): boolean {
  return n?.kind === 'link';
}

/** The token a link node names (what openLink sends). */
export function linkToken(n: NodeView): string {
  return n.id.slice(LINK_PREFIX.length);
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One line about the other session: how it is related, its size. */
export function linkFacts(l: FamilyLink): string {
  return `${l.relation === 'parent' ? 'came from this session' : (l.kind ?? 'fork')} · ${l.messages} messages · ${size(l.bytes)}`;
}

export function linkNode(l: FamilyLink, model: TreeModel): NodeView {
  // Children of a node are ordered by time: a fork sorts after what was there when it was made.
  const atTime = l.at ? (model.nodes[model.index.get(l.at) ?? -1]?.time ?? 0) : 0;
  return {
    id: `${LINK_PREFIX}${l.token}`,
    parentId: l.at,
    type: 'session_link',
    kind: 'link',
    text: `${l.relation === 'parent' ? '↰ from: ' : `${l.kind ?? 'fork'}: `}${l.title}`.slice(0, 240),
    time: Math.max(l.created, atTime + 1),
    link: { relation: l.relation, fileName: l.fileName, messages: l.messages, bytes: l.bytes, facts: linkFacts(l) },
  };
}

/**
 * Puts `links` in the model in place of the link nodes it holds: appended when none goes away,
 * else the model is loaded again without the old ones (rare: a fork deleted).
 */
export function applyLinks(model: TreeModel, links: readonly FamilyLink[]): void {
  const next = new Set(links.map((l) => `${LINK_PREFIX}${l.token}`));
  const stale = model.nodes.some((n) => isLink(n) && !next.has(n.id));
  if (stale)
    model.load(
      model.nodes.filter((n) => !isLink(n)),
      model.leafId,
    );
  model.append(links.filter((l) => l.at === null || model.index.has(l.at)).map((l) => linkNode(l, model)));
}
