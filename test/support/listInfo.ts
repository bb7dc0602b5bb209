// Lists sessions in its own process and reports its own peak RSS, for memory tests of the listing.
// Usage: node --import tsx listInfo.ts AGENT_DIR  → prints {"maxRssMb":…,"infos":[…],"skipped":[…]}
import { SessionRepository } from '../../src/core/session/repository.js';

async function main(): Promise<void> {
  const skipped: { file: string; reason: string }[] = [];
  const repo = new SessionRepository({ agentDir: process.argv[2], env: {} });
  const infos = await repo.listAll({ onSkip: (file, reason) => skipped.push({ file, reason }) });
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ maxRssMb, infos, skipped }));
}

void main();
