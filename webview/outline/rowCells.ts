// The cells of the row layout (one row per entry, like git-graph): the lane column (the tree drawn as
// lines and dots, model/lanes.ts), then message, time, model and tokens. Rows are built only for what
// is in view (outlineView.ts virtualises them); the column header is decoration, each row's accessible
// name already says all of it.
import type { NodeView } from '../../src/protocol';
import type { Item } from '../model/derive';
import type { RowLanes } from '../model/lanes';
import { formatTokens } from '../model/nodeSize';
import { h } from '../ui/dom';
import { localTime } from '../ui/format';

/** Width of one lane, and the most lanes drawn (more share the last one). */
export const LANE_W = 12;
export const MAX_LANES = 12;
const SVG = 'http://www.w3.org/2000/svg';

/** The lane column's width for a tree that keeps `lanes` lanes open at most. */
export function laneColumnWidth(lanes: number): number {
  return Math.min(MAX_LANES, Math.max(1, lanes)) * LANE_W + 6;
}

const lx = (lane: number) => Math.min(lane, MAX_LANES - 1) * LANE_W + LANE_W / 2 + 2;

/** The lane cell of one row `rowH` pixels high. */
export function laneCell(l: RowLanes, it: Item, width: number, rowH: number): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'lanes');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(rowH));
  svg.setAttribute('aria-hidden', 'true');
  const mid = rowH / 2;
  const x = lx(l.lane);
  const path = (d: string, on: boolean) => {
    const p = document.createElementNS(SVG, 'path');
    p.setAttribute('d', d);
    p.setAttribute('class', on ? 'lane on-path' : 'lane');
    svg.append(p);
  };
  const on = new Set(l.passOnPath);
  for (const k of l.pass) path(`M${lx(k)} 0V${rowH}`, on.has(k));
  if (l.up) path(`M${x} 0V${mid}`, it.onPath);
  if (l.down) path(`M${x} ${mid}V${rowH}`, it.onPath && !!it.children?.some((c) => c.onPath && c.row === it.row + 1));
  for (const k of l.forks) {
    const fx = lx(k);
    path(`M${x} ${mid}C${x} ${rowH} ${fx} ${mid} ${fx} ${rowH}`, false);
  }
  const dot = document.createElementNS(SVG, 'circle');
  dot.setAttribute('cx', String(x));
  dot.setAttribute('cy', String(mid));
  dot.setAttribute('r', it.seg ? '3' : '4');
  dot.setAttribute('class', `dot${it.onPath ? ' on-path' : ''}${it.isLeaf ? ' leaf' : ''}${it.seg ? ' seg' : ''}`);
  svg.append(dot);
  return svg;
}

/** Time, model and tokens of an entry (blank for a segment: its first and last are in the message). */
export function infoCells(n: NodeView | undefined): HTMLElement[] {
  const time = h('span', 'cell time', n?.time ? localTime(n.time).slice(0, 16) : '');
  if (n?.time) time.title = localTime(n.time);
  const model = h('span', 'cell model', n?.model ?? '');
  if (n?.model) model.title = n.model;
  const tokens = h('span', 'cell tokens', n?.tokens ? formatTokens(n.tokens) : '');
  return [time, model, tokens];
}

/** The column header above the rows (not part of the tree: screen readers get each row's name). */
export function rowsHeader(): HTMLElement {
  const head = h('div', 'rows-head');
  head.setAttribute('aria-hidden', 'true');
  head.append(
    h('span', 'cell lanes-head', ''),
    h('span', 'cell message', 'Message'),
    h('span', 'cell time', 'Time'),
    h('span', 'cell model', 'Model'),
    h('span', 'cell tokens', 'Tokens'),
  );
  return head;
}
