// The session files as the host holds them, in one place: the open sessions (store), the listing's cache
// and the repository of pi's layout, replaced when piTree.sessionDir changes. Everything else asks
// `repo()` for the current one.
import { statSync } from 'node:fs';
import { collectLeftovers } from '../../core/session/leftovers.js';
import { SessionRepository } from '../../core/session/repository.js';
import { SessionInfoCache } from '../../core/listing/sessionInfo.js';
import { readConfig } from '../platform/config.js';
import { SessionStore } from './sessionStore.js';

export interface SessionFiles {
  store: SessionStore;
  cache: SessionInfoCache;
  repo(): SessionRepository;
  /** piTree.sessionDir changed: a repository for it. */
  resetRepo(): void;
}

export function createSessionFiles(out: { info(m: string): void; warn(m: string): void }): SessionFiles {
  const store = new SessionStore();
  const cache = new SessionInfoCache();
  // Files pi-tree creates (fork, clone, new) are its own writes: they must not look "live".
  const onCreated = (file: string) => {
    try {
      store.noteOwnFile(file, statSync(file).size);
    } catch {
      // gone already
    }
  };
  const makeRepo = () => new SessionRepository({ sessionDir: readConfig().sessionDir || undefined, cache, onCreated });
  let repo = makeRepo();
  // What pi-tree runs killed mid-write left (a fork's temp copy in a session folder, a headless pi's
  // folder in the temp dir), collected once per start, in the background (core/session/leftovers.ts).
  void repo
    .sessionFolders()
    .then((folders) => collectLeftovers(folders))
    .then(
      (removed) =>
        removed.length &&
        out.info(`removed ${removed.length} leftover(s) of interrupted pi-tree writes: ${removed.join(', ')}`),
      (e) => out.warn(`could not collect leftovers of interrupted writes: ${String(e)}`),
    );
  return {
    store,
    cache,
    repo: () => repo,
    resetRepo: () => void (repo = makeRepo()),
  };
}
