// pi's rule for where the leaf goes when the user picks an entry in /tree (agent-session.js
// navigateTree): a user message or a custom message puts the leaf on its PARENT (and its text goes back
// to the editor); any other entry becomes the leaf. Written once over the entry's type and role, so the
// host (src/core/moveTarget.ts) and the webview (which shows a move before the host has written it)
// agree. Pure: no Node, no DOM.

/** Whether picking an entry of this type and role puts the leaf on its parent rather than on it. */
export function movesToParent(type: string, role: string | undefined): boolean {
  return (type === 'message' && role === 'user') || type === 'custom_message';
}
