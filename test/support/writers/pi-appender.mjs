// Appends N user messages through a real pi 1.6.0 SessionManager, one entry at a time (as pi does),
// re-opening the file now and then like a restarted pi would.
import { SessionManager } from '@earendil-works/pi-coding-agent';
const [file, n] = [process.argv[2], Number(process.argv[3])];
let sm = SessionManager.open(file);
for (let i = 0; i < n; i++) {
  if (i % 100 === 0) sm = SessionManager.open(file);
  sm.appendMessage({ role: 'user', content: `pi ${i}`, timestamp: Date.now() });
  if (i % 10 === 0) await new Promise((r) => setImmediate(r));
}
