// What the interop suites against pi 1.6.0 share: pi's modules loaded once, the sessions compared on
// (generated, overflow recoveries, copies of the real fixtures), pi's SessionManager over our entries.
import { copyFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Session } from '../../src/core/session/session.js';
import type { SessionEntry } from '../../src/core/format/types.js';
import { mulberry32, randomSession } from './randomSession.js';
import { SessionBuilder } from './sessionBuilder.js';
import { tempDir } from './tmp.js';

const PI = resolve('node_modules/@earendil-works/pi-coding-agent/dist');
const FIXTURES = resolve('test/fixtures/real');

export interface Pi {
  api: any;
  cmp: any;
  utils: any;
  msgs: any;
  ai: any;
}
let piP: Promise<Pi> | undefined;
export function pi(): Promise<Pi> {
  piP ??= (async () => ({
    api: await import('@earendil-works/pi-coding-agent'),
    cmp: await import(pathToFileURL(join(PI, 'core/compaction/compaction.js')).href),
    utils: await import(pathToFileURL(join(PI, 'core/compaction/utils.js')).href),
    msgs: await import(pathToFileURL(join(PI, 'core/messages.js')).href),
    ai: await import('@earendil-works/pi-ai'),
  }))();
  return piP;
}

export interface Corpus {
  name: string;
  file: string;
  session: Session;
  entries: SessionEntry[];
  /** Leaves to test, spread over the file (always including the real leaf). */
  leaves: string[];
}

export function tmp(): string {
  return tempDir('pi-tree-interop-');
}

async function corpus(name: string, file: string, leafCount = 14): Promise<Corpus> {
  const session = await Session.open(file);
  const entries = (await session.load(session.index.live())).filter((e): e is SessionEntry => !!e);
  const rnd = mulberry32(entries.length);
  const leaves = new Set<string>([session.leafId!]);
  while (leaves.size < Math.min(leafCount, entries.length)) leaves.add(entries[Math.floor(rnd() * entries.length)].id);
  return { name, file, session, entries, leaves: [...leaves] };
}

/** Sessions the interop suites compare on: generated ones, overflow recoveries, copies of the real fixtures. */
export async function loadCorpora(): Promise<Corpus[]> {
  const list: Corpus[] = [];
  for (const seed of [1, 2, 3, 4, 5, 6])
    list.push(await corpus(`random-${seed}`, randomSession(seed, 320).write(tmp())));
  list.push(await corpus('recovery', recoverySession().write(tmp()), 40));
  for (const f of readdirSync(FIXTURES).filter((x) => x.endsWith('.jsonl'))) {
    const copy = join(tmp(), f);
    copyFileSync(join(FIXTURES, f), copy);
    list.push(await corpus(f, copy, 8));
  }
  return list;
}

/**
 * Overflow recoveries as pi writes them: a failed assistant attempt hidden by a context edit at the
 * end of a branch, in several variants (plain, with an outside replacement edit, with metadata).
 */
function recoverySession(): SessionBuilder {
  const b = new SessionBuilder();
  const T = (c: string, n = 400) => c.repeat(n);
  const root = b.user(T('r'));
  b.assistant({ text: T('s') });
  const variants: ((u: string) => void)[] = [
    () => {
      const a = b.assistant({ text: T('x'), stopReason: 'length' });
      b.contextEdit(a, null);
    },
    (u) => {
      const a = b.assistant({ text: T('x'), stopReason: 'length' });
      b.contextEdit(a, null);
      b.contextEdit(u, { content: 'shorter' });
    },
    () => {
      const a = b.assistant({ text: T('x'), stopReason: 'length' });
      b.contextEdit(a, null);
      b.label(a, 'failed');
      b.modelChange();
    },
    () => {
      const a = b.assistant({ text: T('x'), calls: [{ name: 'read', args: { path: 'p' }, id: 'q' }] });
      b.toolResult('q', 'read', T('y'));
      b.contextEdit(a, null);
    },
  ];
  for (const v of variants) {
    b.at(root);
    b.assistant({ text: T('t') });
    const u = b.user(T('u', 200));
    v(u);
  }
  return b;
}

/** pi's SessionManager over exactly our entries (ids as pi-tree sees them). */
export async function piManager(c: Corpus, leafId?: string): Promise<any> {
  const { api } = await pi();
  const sm = api.SessionManager.inMemory(c.session.header.cwd || '/', undefined, [
    structuredClone(c.session.header),
    ...structuredClone(c.entries),
  ]);
  if (leafId) sm.branch(leafId);
  return sm;
}

export async function pathTo(c: Corpus, id: string): Promise<SessionEntry[]> {
  return c.session.getBranch(id);
}
