// The editor's Move here and restore flow (panels/moveHere.ts over CodeRestore) against the vscode mock,
// on real sessions whose checkpoints SimPi captured into a real private store, with a real Session and
// SessionActions and no pi running: a move with nothing that may change files on the way makes no
// plan, the live question comes before any file is written, a leaf that cannot move after the files
// has them put back, files outside the working folder are confirmed by name before any is written, an
// undo puts back the files and the conversation it moved (and leaves a conversation that moved on
// since), and a merge that conflicts names its file. What is checked is on disk: the files and the
// session file, not only the messages. (Before these, only the e2e scenarios in code-server reached
// this module.)
import '../../support/vscode/install.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { Session } from '../../../src/core/session/session.js';
import { SessionRepository } from '../../../src/core/session/repository.js';
import { CodeDocuments } from '../../../src/host/checkpoints/codeDocuments.js';
import { CodeRestore } from '../../../src/host/checkpoints/codeRestore.js';
import { moveHere, type OnMove } from '../../../src/host/panels/moveHere.js';
import { SessionActions } from '../../../src/host/panels/sessionActions.js';
import { journals } from '../../../src/core/checkpoints/restore/restoreJournal.js';
import { finishPending, sessionCode } from '../../../src/core/checkpoints/index.js';
import { projectStore } from '../../../src/core/checkpoints/store/storePaths.js';
import { confirmLiveWrite } from '../../../src/host/platform/liveGuard.js';
import { until } from '../../../scripts/lib/until.js';
import { SimPi } from '../../support/simPi.js';
import { tempDir } from '../../support/tmp.js';
import { answerInOrder, closeTabs, mock, pickInOrder, Uri, workspace } from '../../support/vscode/api.js';

const write = (path: string, content: string) => ({ name: 'write', args: { path, content } });
const KILLER = join(__dirname, '..', '..', 'support', 'restoreKill.ts');
const leafLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"leaf"')).length;

function project() {
  const root = tempDir('pi-tree-host-restore-');
  const cwd = join(root, 'proj');
  const agentDir = join(root, 'agent');
  const sessions = join(root, 'sessions');
  for (const d of [cwd, agentDir, sessions]) mkdirSync(d, { recursive: true });
  const sim = new SimPi(cwd, agentDir, { sessionDir: sessions });
  const put = (p: string, text: string) => writeFileSync(join(cwd, p), text);
  /** A file of the project as it is on disk now (undefined: absent). */
  const read = (p: string) => (existsSync(join(cwd, p)) ? readFileSync(join(cwd, p), 'utf8') : undefined);
  return { root, cwd, agentDir, sim, put, read };
}
type Project = ReturnType<typeof project>;

/** Two turns: a.txt written, then a.txt changed and b.txt made; the leaf is at the second answer. */
async function twoTurns(p: Project) {
  const t1 = await p.sim.turn('one', [write('a.txt', 'a1\n')], () => p.put('a.txt', 'a1\n'));
  const t2 = await p.sim.turn('two', [write('a.txt', 'a2\n'), write('b.txt', 'b2\n')], () => {
    p.put('a.txt', 'a2\n');
    p.put('b.txt', 'b2\n');
  });
  return { t1, t2 };
}

/**
 * The host's parts for one session: CodeRestore made as createCheckpoints makes it, SessionActions with
 * no gateway (no pi with the bridge) and the live guard of the extension, told whether pi writes the
 * session; `onMove` is the setting. Each time the guard asks, the files named are read from disk.
 * `plans` counts the restore plans made.
 */
async function editor(p: Project, o: { live: boolean; onMove?: OnMove; file?: string; watch?: string[] }) {
  const file = o.file ?? p.sim.file;
  const session = await Session.open(file);
  const docs = new CodeDocuments();
  if (o.onMove) mock.setSetting('piTree.checkpoints.onMove', o.onMove);
  const code = new CodeRestore({
    agentDir: () => p.agentDir,
    docs,
    log: () => undefined,
    describe: async (_s, id) => `the node ${id}`,
  });
  const counted = { plans: 0 };
  const plan = code.plan.bind(code);
  code.plan = (s, id) => {
    counted.plans++;
    return plan(s, id);
  };
  const opened: string[] = [];
  const liveAsked: { action: string; canFork: boolean; files: (string | undefined)[] }[] = [];
  const actions = new SessionActions(session, file, {
    repo: () => new SessionRepository({ agentDir: p.agentDir, env: {} }),
    openTree: async (f) => void opened.push(f),
    confirmLiveWrite: (_f, action, canFork) => {
      if (o.live) liveAsked.push({ action, canFork, files: (o.watch ?? []).map(p.read) });
      return confirmLiveWrite(o.live, action, canFork);
    },
  });
  /** Move here, as the webview's moveTo request runs it. */
  const move = (id: string) => moveHere({ session, file, actions, code }, id);
  return { file, session, code, actions, opened, liveAsked, move, counted };
}

/** The files named on disk now, in order (undefined: absent). */
const files = (p: Project, ...names: string[]) => names.map(p.read);

/** Which file is at each path, and when it was written: a file written and put back again differs. */
const stamps = (...paths: string[]) =>
  paths.map((f) => (existsSync(f) ? `${statSync(f).ino}@${statSync(f).mtimeMs}` : 'absent'));

const LIVE = /^pi is writing this session right now/;

/** The restore's choice: a notification beside the preview. */
const CHOICE = /^Restore the code at /;

describe('the restore flow in the editor (vscode mock)', () => {
  let previews: { label: string; resources: [Uri, Uri, Uri][] }[];
  beforeEach(() => {
    mock.reset();
    previews = [];
    // VS Code's multi-file diff editor: a tab with the preview's label, closed by the restore once decided.
    mock.builtins.set('vscode.changes', (label, resources) => {
      previews.push({ label: label as string, resources: resources as [Uri, Uri, Uri][] });
      mock.tabs.push({ label: label as string });
    });
    mock.builtins.set('vscode.executeLinkProvider', () => []);
  });

  describe('Move here, conversation and code, no pi with the bridge, the session live', () => {
    async function start(answer: string | undefined) {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      const e = await editor(p, { live: true, watch: ['a.txt', 'b.txt'] });
      const sessionBytes = readFileSync(e.file);
      const paths = ['a.txt', 'b.txt'].map((f) => join(p.cwd, f));
      const before = stamps(...paths);
      mock.quickPick = pickInOrder('Conversation and code');
      answerInOrder(CHOICE, 'Restore');
      // What had happened when the live question came: previews opened, quick picks asked.
      let atLive: number[] = [];
      mock.answer = (s) => {
        if (!LIVE.test(s.message)) return undefined;
        atLive = [previews.length, mock.picks.length, mock.shown.filter((x) => CHOICE.test(x.message)).length];
        return answer;
      };
      const r = await e.move(t1.answer);
      return {
        p,
        t1,
        t2,
        e,
        r,
        sessionBytes,
        atLive,
        untouched: () => assert.deepEqual(stamps(...paths), before, 'no file was written (nor put back)'),
      };
    }

    it('asks the live question after the preview and before any file is written; cancel writes nothing and keeps the leaf', async () => {
      const { p, t2, e, r, sessionBytes, untouched, atLive } = await start(undefined);
      assert.deepEqual(
        atLive,
        [1, 1, 1],
        'asked once the preview was open and the restore decided (what moves, then the choice)',
      );
      const [, now, atNode] = previews[0].resources.find(([f]) => f.fsPath === join(p.cwd, 'a.txt'))!;
      assert.deepEqual(
        [(await workspace.openTextDocument(now)).getText(), (await workspace.openTextDocument(atNode)).getText()],
        ['a2\n', 'a1\n'],
        'the preview: now → at the node',
      );
      assert.deepEqual(
        mock.picks.map((q) => q.placeholder),
        ['What should move?'],
      );
      assert.equal(mock.shown.filter((x) => CHOICE.test(x.message)).length, 1, 'then the choice, beside the preview');
      assert.deepEqual(
        e.liveAsked,
        [{ action: 'move the leaf', canFork: true, files: ['a2\n', 'b2\n'] }],
        'asked once, the files still as they were',
      );
      const live = mock.shown.filter((s) => LIVE.test(s.message));
      assert.deepEqual(
        live.map((s) => [s.modal, s.items]),
        [[true, ['Fork Instead', 'Do It Anyway']]],
      );
      assert.equal(r.cancelled, true);
      assert.equal(r.moved, false);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'no file changed');
      untouched();
      assert.equal(e.session.leafId, t2.answer, 'the leaf did not move');
      assert.deepEqual(readFileSync(e.file), sessionBytes, 'the session file was not written');
      assert.deepEqual(mock.tabs, [], 'the preview is closed once decided');
      assert.ok(
        mock.quickPicks.every((q) => q.disposed),
        'the decision pick is disposed',
      );
    });

    it('"Do It Anyway" restores the files and moves the leaf', async () => {
      const { p, t1, e, r } = await start('Do It Anyway');
      assert.deepEqual(
        e.liveAsked.map((a) => a.files),
        [['a2\n', 'b2\n']],
        'asked before anything was written',
      );
      assert.equal(r.moved, true);
      assert.equal(r.leafId, t1.answer);
      assert.deepEqual(
        files(p, 'a.txt', 'b.txt'),
        ['a1\n', undefined],
        'a.txt as at the node, b.txt (made after it) deleted',
      );
      assert.equal(e.session.leafId, t1.answer);
      assert.equal((await Session.open(e.file)).leafId, t1.answer, 'the move is in the file');
      assert.ok(mock.shown.some((s) => s.message === 'Restored 2 files.' && s.items.includes('Undo')));
    });

    it('"Fork Instead" writes no file and leaves the session as it is: the fork opens instead', async () => {
      const { p, t1, t2, e, r, sessionBytes, untouched } = await start('Fork Instead');
      assert.deepEqual(
        e.liveAsked.map((a) => a.files),
        [['a2\n', 'b2\n']],
        'asked before anything was written',
      );
      assert.equal(r.cancelled, true);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'no file changed');
      untouched();
      assert.equal(e.session.leafId, t2.answer);
      assert.deepEqual(readFileSync(e.file), sessionBytes);
      assert.equal(e.opened.length, 1, 'the fork is opened');
      assert.notEqual(e.opened[0], e.file);
      assert.equal((await Session.open(e.opened[0])).leafId, t1.answer, 'the fork holds the path to the node');
    });
  });

  describe('Move here with nothing on the way that may change files', () => {
    it('is a plain move: no plan is made and nothing is asked', async () => {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      // a turn with no tool call: nothing between it and the code
      const chat = { user: p.sim.b.user('just talk'), answer: p.sim.b.assistant({ text: 'talked' }) };
      p.sim.save();
      const e = await editor(p, { live: false });
      mock.quickPick = pickInOrder(); // any question fails the test
      const r = await e.move(t2.answer);
      assert.equal(r.moved, true);
      assert.equal(e.session.leafId, t2.answer);
      assert.equal(e.counted.plans, 0, 'no plan was made');
      assert.deepEqual(mock.picks, [], 'nothing was asked');
      assert.deepEqual(previews, []);
      assert.equal(
        (await e.move(chat.user)).editorText,
        'just talk',
        "pi's rule still applies: the leaf on the message's parent, its text back",
      );
      assert.equal(e.session.leafId, t2.answer);
      assert.equal(e.counted.plans, 0);
      // the node before the second turn: the code differs, so it is planned and asked
      mock.quickPick = pickInOrder('Conversation only');
      assert.equal((await e.move(t1.answer)).moved, true);
      assert.equal(e.counted.plans, 1, 'one plan, for the move that crosses a checkpoint');
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'conversation only: the files stay');
    });
  });

  describe('a leaf that cannot move after the files (no pi with the bridge)', () => {
    async function start() {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      const e = await editor(p, { live: false, onMove: 'conversationAndCode' });
      answerInOrder(CHOICE, 'Restore');
      const journal = () => journals(projectStore(p.agentDir, p.cwd).restoresDir)[0];
      return { p, t1, t2, e, journal };
    }

    it('has the files put back when the move fails, and the failure is the answer', async () => {
      const { p, t1, t2, e, journal } = await start();
      let atMove: unknown[] = [];
      e.session.moveTo = async () => {
        atMove = [...files(p, 'a.txt', 'b.txt'), journal().state, journal().leaf?.moved];
        throw new Error('no room for the leaf line');
      };
      await assert.rejects(e.move(t1.answer), /no room for the leaf line/);
      assert.deepEqual(
        atMove,
        ['a1\n', undefined, 'done', false],
        'the files were written, the move due, when the leaf was to move',
      );
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'the files are back');
      assert.equal(journal().state, 'undone');
      assert.equal((await Session.open(e.file)).leafId, t2.answer, 'the leaf did not move');
      assert.ok(!mock.shown.some((s) => /^Restored/.test(s.message)), 'no restore is reported');
    });

    it('has the files put back when the move is cancelled', async () => {
      const { p, t1, t2, e, journal } = await start();
      e.actions.moveTo = async () => ({ leafId: e.session.leafId, moved: false, cancelled: true });
      const r = await e.move(t1.answer);
      assert.equal(r.cancelled, true);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'the files are back');
      assert.equal(journal().state, 'undone');
      assert.equal(e.session.leafId, t2.answer);
      assert.ok(!mock.shown.some((s) => /^Restored/.test(s.message)));
      // and the code is known to be where it was: the same move plans the same files again
      e.actions.moveTo = SessionActions.prototype.moveTo.bind(e.actions);
      answerInOrder(CHOICE, 'Restore');
      assert.equal((await e.move(t1.answer)).moved, true);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a1\n', undefined]);
      assert.equal(journal().leaf?.moved, true);
    });
  });

  it(
    'closing the preview while its choice is open cancels: nothing written, the leaf stays, the status bar says why',
    { timeout: 60_000 },
    async () => {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      const e = await editor(p, { live: false, onMove: 'conversationAndCode' });
      const sessionBytes = readFileSync(e.file);
      // The user reads the choice, then closes the preview's tab instead of answering.
      mock.answer = (s) => {
        if (!CHOICE.test(s.message)) return undefined;
        setImmediate(() => closeTabs(mock.tabs.filter((t) => t.label.startsWith('Restore the code at'))));
        return new Promise<never>(() => undefined) as never;
      };
      const r = await e.move(t1.answer);
      assert.equal(r.moved, false);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'no file written');
      assert.equal(e.session.leafId, t2.answer, 'the leaf did not move');
      assert.deepEqual(readFileSync(e.file), sessionBytes, 'the session file was not written');
      assert.ok(
        mock.statusItems.every((i) => i.disposed),
        'the choices left the status bar',
      );
      assert.deepEqual(mock.statusMessages, [
        '$(close) pi Tree: Restore cancelled, its preview was closed; nothing was written',
      ]);
    },
  );

  describe('files outside the working folder', () => {
    async function start() {
      const p = project();
      const outside = join(p.root, 'elsewhere.conf');
      writeFileSync(outside, 'port=1\n');
      const t1 = await p.sim.turn('x', [write('x.txt', 'x1\n')], () => p.put('x.txt', 'x1\n'));
      await p.sim.turn(
        'edit outside',
        [
          { name: 'edit', args: { path: outside, edits: [{ oldText: 'port=1', newText: 'port=2' }] } },
          write('x.txt', 'x2\n'),
        ],
        () => {
          writeFileSync(outside, 'port=2\n');
          p.put('x.txt', 'x2\n');
        },
      );
      const e = await editor(p, { live: false });
      const before = stamps(outside, join(p.cwd, 'x.txt'));
      return {
        p,
        outside,
        t1,
        e,
        both: () => [readFileSync(outside, 'utf8'), p.read('x.txt')],
        untouched: () => assert.deepEqual(stamps(outside, join(p.cwd, 'x.txt')), before, 'no file was written'),
      };
    }
    const OUTSIDE = /outside the session\u2019s working folder/;

    it('are named in a modal warning before anything is written; dismissed, nothing is written', async () => {
      const { outside, t1, e, both, untouched } = await start();
      let atQuestion: (string | undefined)[] = [];
      answerInOrder(CHOICE, 'Restore');
      mock.answer = (s) => void (OUTSIDE.test(s.message) && (atQuestion = both()));
      assert.equal(await e.code.restoreCode(e.session, e.file, t1.answer), false);
      const asked = mock.shown.filter((s) => OUTSIDE.test(s.message));
      assert.equal(asked.length, 1);
      assert.equal(asked[0].modal, true);
      assert.equal(asked[0].detail, outside, 'the one file outside is named, the file inside is not');
      assert.deepEqual(asked[0].items, ['Write Them']);
      assert.deepEqual(atQuestion, ['port=2\n', 'x2\n'], 'asked before anything was written');
      assert.deepEqual(both(), ['port=2\n', 'x2\n'], 'nothing was written, inside the folder neither');
      untouched();
      assert.ok(!mock.shown.some((s) => /^Restored/.test(s.message)));
    });

    it('"Write Them" writes them', async () => {
      const { t1, e, both } = await start();
      answerInOrder(CHOICE, 'Restore');
      mock.answer = (s) => (OUTSIDE.test(s.message) ? 'Write Them' : undefined);
      assert.equal(await e.code.restoreCode(e.session, e.file, t1.answer), true);
      assert.deepEqual(both(), ['port=1\n', 'x1\n']);
    });

    it("a session pi's layout does not place in its working folder: every file is named, unless the folder is the workspace's", async () => {
      const p = project();
      const t1 = await p.sim.turn('x', [write('x.txt', 'x1\n')], () => p.put('x.txt', 'x1\n'));
      await p.sim.turn('x again', [write('x.txt', 'x2\n')], () => p.put('x.txt', 'x2\n'));
      const moved = join(p.root, 'copied', 'session.jsonl');
      mkdirSync(join(p.root, 'copied'));
      copyFileSync(p.sim.file, moved);
      const e = await editor(p, { live: false, file: moved });
      answerInOrder(CHOICE, 'Restore', 'Restore');
      assert.equal(await e.code.restoreCode(e.session, e.file, t1.answer), false);
      const asked = mock.shown.filter((s) => s.modal);
      assert.equal(asked.length, 1);
      assert.match(asked[0].message, /neither a folder of this workspace nor where pi keeps it/);
      assert.equal(asked[0].detail, join(p.cwd, 'x.txt'));
      assert.equal(p.read('x.txt'), 'x2\n', 'dismissed: nothing written');
      mock.shown = [];
      mock.workspaceFolders = [{ uri: Uri.file(p.cwd), name: 'proj', index: 0 }];
      assert.equal(await e.code.restoreCode(e.session, e.file, t1.answer), true);
      assert.deepEqual(
        mock.shown.filter((s) => s.modal),
        [],
        'a workspace folder vouches for it',
      );
      assert.equal(p.read('x.txt'), 'x1\n');
    });
  });

  describe('undo after a "conversation and code" restore', () => {
    it("puts the files back and moves the leaf back (the restore message's Undo)", async () => {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      const e = await editor(p, { live: false, onMove: 'conversationAndCode' });
      answerInOrder(CHOICE, 'Restore');
      let atRestored: unknown[] = [];
      mock.answer = (s) => {
        if (s.message !== 'Restored 2 files.') return undefined;
        atRestored = [...files(p, 'a.txt', 'b.txt'), e.session.leafId, s.items];
        return 'Undo';
      };
      const r = await e.move(t1.answer);
      assert.equal(r.moved, true);
      assert.deepEqual(
        atRestored,
        ['a1\n', undefined, t1.answer, ['Undo']],
        'restored, and the conversation moved, before Undo',
      );
      const done = await until(() => mock.shown.find((s) => /^Put back/.test(s.message)), 10_000, 'the undo');
      assert.equal(done.message, 'Put back 2 files, and moved the conversation back.');
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n']);
      assert.equal(e.session.leafId, t2.answer, 'the leaf is where it was before the restore');
      assert.equal((await Session.open(e.file)).leafId, t2.answer);
    });

    it("moves the leaf back after a restore to a user message (whose move puts the leaf on the message's parent)", async () => {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      const e = await editor(p, { live: false, onMove: 'conversationAndCode' });
      answerInOrder(CHOICE, 'Restore');
      const r = await e.move(t2.user);
      assert.equal(r.moved, true);
      assert.equal(r.editorText, 'two', "the message's text comes back for editing");
      assert.equal(e.session.leafId, t1.answer, "pi's rule: the leaf goes on the message's parent");
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a1\n', undefined]);
      await e.code.undo(e.session, e.file);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n']);
      assert.equal(e.session.leafId, t2.answer, 'the leaf is back: it had not moved on since the restore');
      assert.ok(
        mock.shown.some((s) => s.message === 'Put back 2 files, and moved the conversation back.'),
        mock.shown.map((s) => s.message).join('\n'),
      );
      await e.code.undo(e.session, e.file, true);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a1\n', undefined]);
      assert.equal(e.session.leafId, t1.answer, 'redo puts the leaf where the restore did: on the parent');
    });

    it('puts the files back and leaves the leaf where it moved since', async () => {
      const p = project();
      const { t1 } = await twoTurns(p);
      const e = await editor(p, { live: false, onMove: 'conversationAndCode' });
      answerInOrder(CHOICE, 'Restore');
      assert.equal((await e.move(t1.answer)).moved, true);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a1\n', undefined]);
      await e.session.moveTo(t1.call); // the user moved on after the restore
      await e.code.undo(e.session, e.file);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'the files are back');
      assert.equal(e.session.leafId, t1.call, 'the leaf stays');
      assert.equal((await Session.open(e.file)).leafId, t1.call);
      assert.ok(
        mock.shown.some(
          (s) => s.message === 'Put back 2 files; the conversation moved on since the restore and stays where it is.',
        ),
        mock.shown.map((s) => s.message).join('\n'),
      );
    });
  });

  describe('a restore killed half way (kill -9 of `pi-tree restore`)', () => {
    /** Two turns; a restore to the first answer killed once its first file is written (b.txt deleted, a.txt not yet back). */
    async function killed() {
      const p = project();
      const { t1, t2 } = await twoTurns(p);
      const kill = spawnSync(
        process.execPath,
        ['--import', 'tsx', KILLER, p.sim.file, p.agentDir, t1.answer, 'file-written', '1', '--conversation'],
        { encoding: 'utf8' },
      );
      assert.equal(kill.signal, 'SIGKILL', kill.stderr);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', undefined], 'half written');
      const e = await editor(p, { live: false });
      const pending = () =>
        journals(projectStore(p.agentDir, p.cwd).restoresDir).filter((j) => j.state === 'prepared').length;
      return { p, t1, t2, e, pending };
    }

    it("is finished before the editor plans: a restore to where the code was writes the killed one's files back", async () => {
      const { p, t2, e, pending } = await killed();
      answerInOrder(CHOICE, 'Restore');
      assert.equal(await e.code.restoreCode(e.session, e.file, t2.answer), true);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'the code at the second answer, whole');
      assert.equal(pending(), 0, 'no journal is left half done');
      assert.ok(mock.shown.some((m) => /^pi-tree finished a restore that was interrupted \(2 files\)/.test(m.message)));
      assert.equal(leafLines(e.file), 0, "the editor leaves the killed restore's conversation move to the CLI or pi");
      // The CLI's next restore moves it, and the code stays recorded where the editor's restore put it.
      await e.code.settled();
      const sc = sessionCode(await Session.open(e.file), { agentDir: p.agentDir });
      const recorded = () => sc.checkpoints.store!.manifest(sc.checkpoints.sessionId!).at(-1);
      const before = recorded();
      assert.equal(before?.kind === 'restore' && before.target, t2.answer);
      const f = await finishPending(sc);
      assert.equal(f.leafDue.length, 1, 'its conversation move is still due');
      assert.deepEqual(f.finished, [], 'its files were finished before: the CLI says nothing of files');
      assert.deepEqual(recorded(), before, 'not recorded again at the killed restore\u2019s node');
    });

    it('is finished before an undo: the undo puts back the killed restore, not an older one', async () => {
      const { p, e, pending } = await killed();
      await e.code.undo(e.session, e.file);
      assert.equal(pending(), 0);
      assert.deepEqual(files(p, 'a.txt', 'b.txt'), ['a2\n', 'b2\n'], 'as before the killed restore');
    });
  });

  it('a merge where the user and the node changed the same line leaves conflict markers and names the file', async () => {
    const p = project();
    const t1 = await p.sim.turn('write m', [write('m.txt', 'a\nb\n')], () => p.put('m.txt', 'a\nb\n'));
    await p.sim.turn('edit m', [write('m.txt', 'a\nB\n')], () => p.put('m.txt', 'a\nB\n'));
    p.put('m.txt', 'a\nmy b\n'); // the user's line, saved between turns
    const e = await editor(p, { live: false });
    answerInOrder(CHOICE, 'Choose per File…');
    answerInOrder(/^m\.txt \(/, 'Merge'); // the file's own question, beside the preview
    mock.answer = (s) => (/^Merged with conflict markers/.test(s.message) ? 'Open' : undefined);
    assert.equal(await e.code.restoreCode(e.session, e.file, t1.answer), true);
    assert.match(p.read('m.txt')!, /^a\n<<<<<<< yours\nmy b\n=+\nb\n>>>>>>> the node\n$/);
    const merged = mock.shown.filter((s) => /^Merged with conflict markers/.test(s.message));
    assert.deepEqual(
      merged.map((s) => [s.level, s.message, s.items]),
      [['warning', 'Merged with conflict markers left to settle: m.txt (1 conflict).', ['Open']]],
    );
    const shownFile = await until(() => mock.editors[0], 10_000, 'the merged file to open');
    assert.equal(shownFile.fsPath, join(p.cwd, 'm.txt'));
    assert.ok(
      mock.shown.some((s) => /^m\.txt \(/.test(s.message)),
      'the per-file question names the file, beside the preview',
    );
    assert.equal(mock.picks.length, 0, 'no pick over the preview');
  });
});
