// The restore's decision, asked beside its preview, never over it: a quick pick or a modal dialog would
// sit on the multi-file diff editor (a pick hid the first file's left side, the conflict lines), so the
// choice is a notification (bottom right) with the same choices mirrored in the status bar, which stay
// when the notification folds into the notification centre. The user scrolls the preview, then chooses
// in either place. Conflicts are decided for all at once or per file (keep mine, take the node's,
// merge: a notification per file, asked the same way); a paged preview offers the rest of its files.
// Closing the preview (`closed`) cancels the question: what it asked about is no longer in sight.
import * as vscode from 'vscode';
import type { Resolution } from '../../core/checkpoints/index.js';
import { planTally, planWords, takeNodeWords, type PlanItem, type RestorePlan } from '../../core/checkpoints/index.js';

/** What the user chose: the resolutions to restore with, the whole preview first, or nothing. */
export type RestoreDecision = { restore: Map<string, Resolution> } | 'previewAll' | undefined;

type Choice = 'restore' | 'mine' | 'theirs' | 'merge' | 'each' | 'previewAll' | 'cancel';
/** One choice: its button's title, and its status bar item's icon (a codicon) and tooltip. */
type ChoiceItem = { choice: Choice; label: string; icon: string; tooltip: string };

/** The words of the choice: a restore's (the node's files), or an adopt's (a variant's files). */
export interface ChoiceWords {
  verb: string;
  /** Whose version "take" writes. */
  theirs: string;
}

const RESTORE_WORDS: ChoiceWords = { verb: 'Restore', theirs: "the node's" };

/**
 * Asks how to restore `plan`. `hidden`: how many of its files the preview does not show yet (0: all
 * shown), offered as "Preview all". `closed` aborts when the preview is closed: the answer is Cancel.
 */
export async function decideRestore(
  plan: RestorePlan,
  title: string,
  withConversation: boolean,
  hidden: number,
  words: ChoiceWords = RESTORE_WORDS,
  closed?: AbortSignal,
): Promise<RestoreDecision> {
  const t = planTally(plan);
  const conflicts = plan.items.filter((i) => i.action === 'conflict');
  const one = conflicts.length === 1;
  const items: ChoiceItem[] = conflicts.length
    ? [
        {
          choice: 'mine',
          label: 'Keep Mine',
          icon: 'check',
          tooltip: `${words.verb}, and keep ${one ? 'the file' : `the ${conflicts.length} files`} you changed since as ${one ? 'it is' : 'they are'}`,
        },
        {
          choice: 'theirs',
          label: words === RESTORE_WORDS ? 'Take the Node\u2019s' : `Take ${words.theirs}`,
          icon: 'history',
          tooltip: one
            ? `${words.verb}; ${conflicts[0].key}: ${words === RESTORE_WORDS ? takeNodeWords(conflicts[0]).toLowerCase() : `write ${words.theirs} version`} (Undo gives yours back)`
            : `${words.verb}, taking ${words.theirs} version of the ${conflicts.length} files you changed since (Undo gives yours back)`,
        },
        {
          choice: 'each',
          label: 'Choose per File\u2026',
          icon: 'list-selection',
          tooltip: `Keep mine, take ${words === RESTORE_WORDS ? 'the node\u2019s' : words.theirs}, or merge, file by file`,
        },
      ]
    : [{ choice: 'restore', label: words.verb, icon: 'check', tooltip: `${words.verb} ${planWords(t)}` }];
  if (hidden > 0)
    items.push({
      choice: 'previewAll',
      label: `Preview All ${t.files} Files`,
      icon: 'multiple-windows',
      tooltip: `The preview shows the first ${t.files - hidden}`,
    });
  items.push({ choice: 'cancel', label: 'Cancel', icon: 'close', tooltip: 'Write nothing' });
  // What is left as it is, and what pi-tree cannot know, said in the question itself.
  const left = plan.items
    .filter((i) => i.action === 'unrestorable')
    .map((i) => `${i.key} (${i.reason ?? 'not restorable'})`);
  const aside = [
    ...left.slice(0, 3),
    ...(left.length > 3 ? [`${left.length - 3} more`] : []),
    ...plan.notes.slice(0, 2),
  ];
  const conflictWords = conflicts.length
    ? ` You changed ${one ? conflicts[0].key : `${conflicts.length} of them`} since: keep ${one ? 'it' : 'them'}, or take ${words === RESTORE_WORDS ? 'the node\u2019s' : `${words.theirs} version`}?`
    : '';
  const message = `${title}? ${planWords({ ...t, kept: 0 })}${withConversation ? '; the conversation moves there' : ''}. Undo puts everything back.${conflictWords}${aside.length ? ` Left as they are: ${aside.join('; ')}.` : ''}`;
  const choice = await choose(items, message, closed);
  if (!choice || choice === 'cancel') return undefined;
  if (choice === 'previewAll') return 'previewAll';
  const res = new Map<string, Resolution>();
  for (const [n, i] of conflicts.entries()) {
    if (choice === 'mine' || choice === 'theirs') res.set(i.key, choice);
    else {
      const r = await decideOne(i, words, n + 1, conflicts.length, closed);
      if (!r) return undefined;
      res.set(i.key, r);
    }
  }
  return { restore: res };
}

/**
 * One conflicting file (the `n`th of `of`): keep mine, take the node's, or merge (when both sides are
 * files), asked as the whole restore is, beside the preview, so the file's diff stays in sight.
 */
async function decideOne(
  i: PlanItem,
  words: ChoiceWords,
  n: number,
  of: number,
  closed: AbortSignal | undefined,
): Promise<Resolution | undefined> {
  const node = words === RESTORE_WORDS;
  const items: ChoiceItem[] = [
    { choice: 'mine', label: 'Keep Mine', icon: 'account', tooltip: `${i.key}: leave the file as it is now` },
    {
      choice: 'theirs',
      label: node ? 'Take the Node\u2019s' : `Take ${words.theirs}`,
      icon: 'history',
      tooltip: `${i.key}: ${node ? takeNodeWords(i).toLowerCase() : `write ${words.theirs} version of the file`} (Undo gives yours back)`,
    },
    ...(i.now.kind === 'file' && i.target.kind === 'file'
      ? [
          {
            choice: 'merge' as const,
            label: 'Merge',
            icon: 'git-merge',
            tooltip: `${i.key}: a three-way merge with the agent\u2019s version as the base: your lines stay; where both changed the same lines, conflict markers`,
          },
        ]
      : []),
    { choice: 'cancel', label: 'Cancel', icon: 'close', tooltip: 'Write nothing' },
  ];
  const why = i.reason ?? 'changed since the latest checkpoint';
  const message = `${of > 1 ? `File ${n} of ${of}: ` : ''}${i.key} (${why}): keep yours, or take ${node ? 'the node\u2019s' : `${words.theirs} version`}?`;
  const c = await choose(items, message, closed);
  return c === 'mine' || c === 'theirs' || c === 'merge' ? c : undefined;
}

/**
 * The choice beside the preview: a notification with a button per choice, and the same choices in the
 * status bar (they stay while the notification is folded away). The first answer wins; closing the
 * notification, or `closed` (the preview closed), is Cancel. Every status bar item goes once it is answered.
 */
async function choose(items: ChoiceItem[], message: string, closed?: AbortSignal): Promise<Choice | undefined> {
  if (closed?.aborted) return 'cancel';
  const bar = items.map((c, i) => {
    const item = vscode.window.createStatusBarItem(
      `piTree.restoreChoice.${c.choice}`,
      vscode.StatusBarAlignment.Left,
      1000 - i,
    );
    item.name = `pi Tree: ${c.label}`;
    item.text = `$(${c.icon}) ${c.label}`;
    item.tooltip = c.tooltip;
    item.accessibilityInformation = { label: `Restore preview: ${c.label}. ${c.tooltip}`, role: 'button' };
    return item;
  });
  let answer: (c: Choice | undefined) => void = () => undefined;
  const answered = new Promise<Choice | undefined>((resolve) => (answer = resolve));
  const onClosed = () => answer('cancel');
  closed?.addEventListener('abort', onClosed);
  const reg = registerChoiceCommands(items, (c) => answer(c));
  items.forEach((c, i) => {
    bar[i].command = { command: `piTree.restoreChoice.${c.choice}`, title: c.label };
    bar[i].show();
  });
  void vscode.commands.executeCommand('setContext', 'piTree.restoreChoiceOpen', true);
  void vscode.window
    .showInformationMessage(message, ...items.map((c) => c.label))
    .then((label) => answer(label === undefined ? 'cancel' : items.find((c) => c.label === label)?.choice));
  try {
    return await answered;
  } finally {
    closed?.removeEventListener('abort', onClosed);
    for (const b of bar) b.dispose();
    reg.dispose();
    void vscode.commands.executeCommand('setContext', 'piTree.restoreChoiceOpen', false);
  }
}

/** The status bar items' commands, for this one question (registered while it is open). */
function registerChoiceCommands(items: ChoiceItem[], chose: (c: Choice) => void): vscode.Disposable {
  return vscode.Disposable.from(
    ...items.map((c) => vscode.commands.registerCommand(`piTree.restoreChoice.${c.choice}`, () => chose(c.choice))),
  );
}
