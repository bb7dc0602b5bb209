// Codicon glyphs used inside SVG text (CSS classes cannot reach SVG <text>). Code points are taken from
// @vscode/codicons' codicon.csv; test/webview/webviewHtml.test.ts checks them against that file.
import type { NodeKind } from '../../src/protocol';

export const CODICON_POINTS = {
  account: 0xeb99,
  hubot: 0xeb08,
  tools: 0xeb6d,
  terminal: 0xea85,
  extensions: 0xeae6,
  gear: 0xeaf8,
  'git-merge': 0xeafe,
  'file-zip': 0xeaef,
  sparkle: 0xec10,
  lightbulb: 0xea61,
  tag: 0xea66,
  note: 0xeb26,
  location: 0xeb1a,
  pulse: 0xeb31,
  'symbol-event': 0xea86,
  edit: 0xea73,
  package: 0xeb29,
  ellipsis: 0xea7c,
  'circle-filled': 0xea71,
  'repo-forked': 0xea63,
  diff: 0xeae1,
  history: 0xea82,
  'git-compare': 0xeafd,
} as const;
export type CodiconName = keyof typeof CODICON_POINTS;

export const KIND_ICONS: Record<NodeKind, CodiconName> = {
  user: 'account',
  assistant: 'hubot',
  toolResult: 'tools',
  bash: 'terminal',
  custom: 'extensions',
  system: 'gear',
  branchSummary: 'git-merge',
  compaction: 'file-zip',
  model: 'sparkle',
  thinking: 'lightbulb',
  label: 'tag',
  name: 'note',
  leaf: 'location',
  usage: 'pulse',
  contextEdit: 'edit',
  customEntry: 'extensions',
  activeTools: 'package',
  link: 'repo-forked',
  other: 'symbol-event',
};

export function glyph(name: CodiconName): string {
  return String.fromCharCode(CODICON_POINTS[name]);
}
