// The editor killed mid-turn: a headless pi that pi-tree started for Ask from here (no pi ran the
// session) is mid-answer, the model holding the rest, when VS Code's extension host is killed with
// SIGKILL. pi's stdin (pi-tree's end of its RPC pipe) closes with the host, so pi ends: no pi is left
// running, and the session file holds whole lines only.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import { lastUserText } from '../support/askPi.js';
import { completionSse, gate, startLoopback, type Loopback } from '../support/loopbackOpenAI.js';
import { scenario } from './harness.js';
import { headlessAskScene } from './headlessAskScene.js';
import { openTree, selectByFind, until } from './uxHelpers.js';

/** Processes whose command line matches `re`, with their environment holding PI_CODING_AGENT_DIR=`agentDir`. */
function processes(re: RegExp, agentDir: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!re.test(cmd)) continue;
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (env.includes(`PI_CODING_AGENT_DIR=${agentDir}`)) out.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/** The children of `parents` that are pi (it names its process "pi…"; its command line is that name then). */
function piChildren(parents: number[]): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!parents.includes(ppid)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (/^pi\b|pi-coding-agent/.test(cmd)) out.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    // (a zombie is dead: its parent has not reaped it yet)
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('the extension host killed mid-turn', { skip: process.platform !== 'linux' }, () => {
  let lb: Loopback | undefined;
  const held = gate();
  const scene = headlessAskScene(() => lb!, '019b8f3a-0000-7000-8000-00000000e2b1');
  const { made } = scene;
  before(async () => {
    lb = await startLoopback(() => completionSse('a long and careful answer', { pieces: 5, heldUntil: held.opened }));
  });
  after(async () => {
    held.open();
    await lb?.close();
  });
  scenario(
    'kill -9 of the extension host while pi-tree’s headless pi answers: that pi ends, the file keeps whole lines',
    async (vs) => {
      const wv = await openTree(vs, 'Read the config');
      await selectByFind(wv, 'settings.json', made.answer);
      const box = wv.locator('.details textarea[data-field="ask"]');
      await box.fill('Explain it slowly');
      await box.press('Enter');
      await until(
        () => (lb!.requests.some((r) => lastUserText(r) === 'Explain it slowly') ? true : undefined),
        120_000,
        'pi mid-turn: the model holds its answer',
      );
      const hosts = processes(/extensionHost/, made.agentDir);
      assert.ok(hosts.length, 'the extension host found');
      const pis = piChildren(hosts);
      assert.ok(pis.length, 'the headless pi runs');
      await vs.screenshot('mid-turn');
      for (const h of hosts) process.kill(h, 'SIGKILL');
      await until(() => (pis.every((p) => !alive(p)) ? true : undefined), 60_000, 'every pi gone');
      for (const line of readFileSync(made.file, 'utf8').split('\n').filter(Boolean))
        assert.doesNotThrow(() => JSON.parse(line), `a whole line: ${line.slice(0, 80)}`);
    },
    scene.options,
  );
});
