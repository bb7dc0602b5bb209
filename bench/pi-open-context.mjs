// What pi 1.6.0 does to resume a session: SessionManager.open + buildSessionContext, output as JSON.
import { SessionManager } from '@earendil-works/pi-coding-agent';
const sm = SessionManager.open(process.argv[2]);
const ctx = sm.buildSessionContext();
process.stdout.write(
  JSON.stringify({
    leafId: sm.getLeafId(),
    messages: ctx.messages,
    thinkingLevel: ctx.thinkingLevel,
    model: ctx.model,
  }),
);
