// The header's "connected to pi <pid>" badge: shown while a running pi with the pi-tree bridge has the
// session open (every change then goes through that pi), with a spinner while pi is busy with a turn.
import type { SessionMeta } from '../../src/protocol';

export function bridgeBadge(bridge: SessionMeta['bridge']): HTMLElement[] {
  if (!bridge) return [];
  const b = document.createElement('span');
  b.className = `badge bridge${bridge.busy ? ' busy' : ''}`;
  b.dataset.pid = String(bridge.pid);
  b.setAttribute('role', 'status');
  if (bridge.busy) {
    const spin = document.createElement('span');
    spin.className = 'codicon codicon-loading codicon-modifier-spin';
    spin.setAttribute('aria-hidden', 'true');
    b.append(spin, ' ');
  }
  b.append(`connected to pi ${bridge.pid}${bridge.busy ? ' · busy' : ''}`);
  const version = bridge.piVersion ? ` ${bridge.piVersion}` : '';
  b.title = `pi${version} (pid ${bridge.pid}) runs this session with the pi-tree bridge: moves, labels, forks and summaries go through it${bridge.busy ? '. pi is busy with a turn; a change waits for it or asks.' : '.'}`;
  return [b];
}
