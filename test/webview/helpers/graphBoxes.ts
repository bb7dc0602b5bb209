// Where the graph's cards are on screen, for the browser tests of the view (#17): the graph viewport's
// box and the boxes of nodes by entry id; and the checks every test ends with.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ScriptedHost } from './browser';

export type Box = { left: number; right: number; top: number; bottom: number };

/** Screen boxes of the graph viewport and of the nodes with these entry ids (null when not drawn). */
export function boxes(page: Page, ids: string[]) {
  return page.evaluate((ids) => {
    const g = document.querySelector('.graph')!.getBoundingClientRect();
    const nodes = Object.fromEntries(
      ids.map((id) => {
        const r = document.querySelector(`svg.scene g.node[data-entry-id="${id}"] rect.box`)?.getBoundingClientRect();
        return [id, r ? { left: r.left, right: r.right, top: r.top, bottom: r.bottom } : null];
      }),
    );
    return { g: { left: g.left, right: g.right, top: g.top, bottom: g.bottom, width: g.width }, nodes };
  }, ids);
}

export const inside = (b: Box | null, g: Box) =>
  !!b && b.left >= g.left - 0.5 && b.right <= g.right + 0.5 && b.top >= g.top - 0.5 && b.bottom <= g.bottom + 0.5;

export async function close(host: ScriptedHost): Promise<void> {
  assert.deepEqual(host.pageErrors, []);
  assert.deepEqual(
    await host.page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
    [],
  );
  await host.page.context().close();
}
