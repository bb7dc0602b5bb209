// Makes a variant where the variants root is a tiny file system (the caller mounted a tmpfs there, in a
// mount namespace of its own) and prints what happened as one JSON line: the error, and what is left
// of the variant anywhere (its folder, record, store, session file), so the test sees the cleanup.
// Usage: tsx variantNoRoom.ts AGENT_DIR SESSION_FILE ENTRY_ID
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Session } from '../../src/core/session/session.js';
import { makeVariant } from '../../src/core/variants/index.js';

const walk = (d: string): string[] => (existsSync(d) ? readdirSync(d, { recursive: true }).map(String) : []);

async function main(): Promise<void> {
  const [agentDir, file, entryId] = process.argv.slice(2);
  const stores = walk(join(agentDir, 'pi-tree', 'checkpoints')).filter((p) => !p.includes('/')).length;
  const sessions = readdirSync(dirname(file)).length;
  let out: Record<string, unknown>;
  try {
    await makeVariant({ agentDir, source: await Session.open(file), entryId });
    out = { error: null };
  } catch (e) {
    out = { error: (e as Error).message, name: (e as Error).name };
  }
  out.variants = walk(join(agentDir, 'pi-tree', 'variants')).filter((p) => p.split('/').length > 1);
  out.storesAdded = walk(join(agentDir, 'pi-tree', 'checkpoints')).filter((p) => !p.includes('/')).length - stores;
  out.sessionsAdded = readdirSync(dirname(file)).length - sessions;
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
void main();
