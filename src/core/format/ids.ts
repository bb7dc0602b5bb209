// Ids in pi's shapes: entry ids are 8 lowercase hex characters unique in their file, made with nanoid's
// customAlphabet (each character from 4 bits of the crypto RNG, so all are equally
// likely); session ids are UUIDv7. nanoid, node:crypto and uuid (which loads it) are loaded when an id is
// first made (lazyNode.ts): the commands that only read a session never load them.
import { nanoidLib, nodeCrypto, uuidLib } from '../platform/lazyNode.js';

let hex8: (() => string) | undefined;

/** A fresh entry id not in `taken` (pi retries 100 times; after that the space is effectively full). */
export function newEntryId(taken: { has(id: string): boolean }): string {
  hex8 ??= nanoidLib().customAlphabet('0123456789abcdef', 8);
  for (let i = 0; i < 1000; i++) {
    const id = hex8();
    if (!taken.has(id)) return id;
  }
  throw new Error('Could not find a free entry id');
}

export function newSessionId(): string {
  return uuidLib().v7();
}

/** Deterministic 8-hex id for in-memory v1 migration, so ids stay stable across loads of one file. */
export function stableEntryId(seed: string, n: number, taken: Set<string>): string {
  for (let k = 0; ; k++) {
    const id = nodeCrypto().createHash('sha256').update(`${seed}:${n}:${k}`).digest('hex').slice(0, 8);
    if (!taken.has(id)) return id;
  }
}

/** pi's session-id rule for ids that end up in file names. */
export const SESSION_ID_RE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** Entry timestamps as pi writes them: ISO-8601 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}
