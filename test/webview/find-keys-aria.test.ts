// Find parser/matcher, keymap registry and screen-reader labels (pure, in Node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeView } from '../../src/protocol';
import { parseQuery, matchNode } from '../../webview/model/findQuery';
import {
  KEYMAP,
  isFieldEditingKey,
  resolveKey,
  shortcutSheet,
  conflicts,
  formatBinding,
  type KeyLike,
} from '../../webview/app/keymap';
import { nodeAriaLabel, segmentAriaLabel, relativeTime } from '../../webview/outline/ariaText';

const base: NodeView = {
  id: 'a1',
  parentId: null,
  type: 'message',
  role: 'assistant',
  kind: 'assistant',
  text: 'assistant: Fixed the Parser bug',
  time: 0,
};

test('find: operators, quotes, plain tokens (all must match), regex errors', () => {
  const q = parseQuery('role:assist tool:edit "parser bug" file:reader model:claude');
  assert.deepEqual(
    q.terms.map((t) => [t.kind, t.value]),
    [
      ['role', 'assist'],
      ['tool', 'edit'],
      ['text', 'parser bug'],
      ['file', 'reader'],
      ['model', 'claude'],
    ],
  );
  const n: NodeView = { ...base, tools: ['edit', 'read'], files: ['src/core/reader.ts'], model: 'claude-x' };
  assert.equal(matchNode(n, q), true);
  assert.equal(matchNode({ ...n, tools: ['read'] }, q), false, 'every term must match');
  assert.equal(matchNode(n, parseQuery('fixed missing')), false);
  assert.equal(matchNode(n, parseQuery('FIXED parser')), true, 'case-insensitive');
  assert.equal(matchNode({ ...n, label: 'Start here' }, parseQuery('label:"start here"')), true);
  assert.equal(matchNode(n, parseQuery('label:start')), false);
  assert.equal(matchNode(n, parseQuery('re:fix(ed)?\\s+the')), true);
  assert.equal(matchNode(n, parseQuery('re:^user')), false);
  assert.equal(matchNode(n, parseQuery('re:^assistant: fixed')), true, 're: anchors apply to the row text');
  assert.equal(
    parseQuery('re:(').error,
    'Invalid regular expression: Unterminated group',
    'said once, with the reason',
  );
  assert.equal(parseQuery('re:a/b(').error, 'Invalid regular expression: Unterminated group');
  assert.equal(parseQuery('re:a/b').error, undefined, 'a slash in a pattern is fine');
  assert.equal(matchNode(n, parseQuery('')), false, 'an empty query matches nothing');
  assert.equal(matchNode({ ...base, role: 'toolResult', kind: 'toolResult' }, parseQuery('role:tool')), true);
  assert.equal(
    matchNode(
      { ...base, type: 'compaction', role: undefined, kind: 'compaction', text: '[compaction: 3k tokens]' },
      parseQuery('role:compaction'),
    ),
    true,
  );
  assert.deepEqual(parseQuery('unknown:thing').terms, [{ kind: 'text', value: 'unknown:thing' }]);
});

function key(code: string, mods: Partial<KeyLike> = {}, key = ''): KeyLike {
  return { code, key, shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, ...mods };
}

test('select all, undo and redo in a text field stay in the field (not sent to the workbench to come back late)', () => {
  assert.equal(isFieldEditingKey(key('KeyA', { ctrlKey: true }, 'a')), true);
  assert.equal(isFieldEditingKey(key('KeyQ', { ctrlKey: true }, 'a')), true, 'AZERTY: the A key');
  assert.equal(isFieldEditingKey(key('KeyZ', { ctrlKey: true }, 'z')), true);
  assert.equal(isFieldEditingKey(key('KeyZ', { ctrlKey: true, shiftKey: true }, 'Z')), true);
  assert.equal(isFieldEditingKey(key('KeyY', { ctrlKey: true }, 'y')), true);
  assert.equal(isFieldEditingKey(key('KeyA', { metaKey: true }, 'a'), true), true);
  assert.equal(isFieldEditingKey(key('KeyA', { ctrlKey: true }, 'a'), true), false, 'Ctrl is not Cmd on macOS');
  assert.equal(isFieldEditingKey(key('KeyA', {}, 'a')), false);
  assert.equal(isFieldEditingKey(key('KeyF', { ctrlKey: true }, 'f')), false, 'Ctrl+F stays "open find"');
});

test('keymap: no two commands share a binding, and keys resolve by scope and physical code', () => {
  assert.deepEqual(conflicts(), []);
  assert.equal(resolveKey(key('ArrowUp'), 'tree')?.id, 'nav.prevRow');
  assert.equal(resolveKey(key('ArrowUp', { altKey: true }), 'tree')?.id, 'nav.parent');
  assert.equal(resolveKey(key('ArrowUp', { shiftKey: true }), 'tree')?.id, 'view.panUp');
  assert.equal(resolveKey(key('KeyB', { shiftKey: true }), 'tree')?.id, 'nav.prevBranch');
  assert.equal(resolveKey(key('Enter'), 'tree')?.id, 'act.move');
  assert.equal(resolveKey(key('Enter', { shiftKey: true }), 'tree')?.id, 'act.moveSummary');
  assert.equal(resolveKey(key('F10', { shiftKey: true }), 'tree')?.id, 'act.menu');
  assert.equal(resolveKey(key('ContextMenu'), 'tree')?.id, 'act.menu');
  assert.equal(resolveKey(key('KeyF', { ctrlKey: true }), 'global')?.id, 'find.open');
  assert.equal(resolveKey(key('KeyF', { metaKey: true }), 'global', true)?.id, 'find.open');
  assert.equal(resolveKey(key('KeyF', { ctrlKey: true }), 'global', true), undefined, 'Ctrl is not Cmd on macOS');
  assert.equal(resolveKey(key('KeyF'), 'global'), undefined, 'tree keys are inactive in text fields');
  assert.equal(resolveKey(key('Escape'), 'global')?.id, 'escape');
  // `?` by typed character, whatever key produces it (e.g. Shift+Minus on a German layout).
  assert.equal(resolveKey(key('Minus', { shiftKey: true }, '?'), 'tree')?.id, 'help');
  assert.equal(resolveKey(key('Slash', {}, '?'), 'tree')?.id, 'help', 'a typed ? wins over the / key it shares');
  assert.equal(resolveKey(key('Slash', {}, '/'), 'tree')?.id, 'find.open');
  // AZERTY: the physical Q-position key types "a" but code is KeyQ: bound by code, nothing fires.
  assert.equal(resolveKey(key('KeyQ', {}, 'a'), 'tree'), undefined);
});

test('keymap: a key that types a character into a text field never runs a command there', () => {
  // `/` opens find from the tree, but in the find box (or the label editor) it is a slash; `?` a question mark.
  assert.equal(resolveKey(key('Slash', {}, '/'), 'global')?.id, 'find.open', 'outside a field / still opens find');
  assert.equal(resolveKey(key('Slash', {}, '/'), 'field'), undefined);
  assert.equal(resolveKey(key('Slash', { shiftKey: true }, '?'), 'field'), undefined);
  assert.equal(
    resolveKey(key('Digit7', { shiftKey: true }, '/'), 'field'),
    undefined,
    'a / typed with Shift+7 (German layout)',
  );
  assert.equal(resolveKey(key('KeyQ', { altKey: true }, '@'), 'field'), undefined, 'AltGr symbols are text too');
  // Keys that type nothing still work in a field: Ctrl+F, F3, Escape.
  assert.equal(resolveKey(key('KeyF', { ctrlKey: true }, 'f'), 'field')?.id, 'find.open');
  assert.equal(resolveKey(key('F3', {}, 'F3'), 'field')?.id, 'find.next');
  assert.equal(resolveKey(key('F3', { shiftKey: true }, 'F3'), 'field')?.id, 'find.prev');
  assert.equal(resolveKey(key('Escape', {}, 'Escape'), 'field')?.id, 'escape');
  assert.equal(resolveKey(key('Enter', {}, 'Enter'), 'field'), undefined, 'tree keys stay off in fields');
  // Every binding without Ctrl/Cmd that a printable key could trigger is refused in a field.
  for (const cmd of KEYMAP) {
    for (const b of cmd.bindings) {
      if (b.mod || !(b.key?.length === 1 || /^(Key|Digit)|^(Slash|Period|Minus|Equal|Bracket)/.test(b.code ?? '')))
        continue;
      const k =
        b.key ??
        (b.code!.startsWith('Key')
          ? b.code!.slice(3).toLowerCase()
          : b.code!.startsWith('Digit')
            ? b.code!.slice(5)
            : '/');
      assert.equal(
        resolveKey(key(b.code ?? 'Slash', { shiftKey: !!b.shift, altKey: !!b.alt }, k), 'field'),
        undefined,
        `${cmd.id} ${JSON.stringify(b)}`,
      );
    }
  }
});

test('keymap: the shortcut sheet is generated from the registry and lists every command', () => {
  const sheet = shortcutSheet();
  const ids = sheet.flatMap((g) => g.rows.map((r) => r.id));
  assert.deepEqual(ids.sort(), KEYMAP.map((c) => c.id).sort());
  const move = sheet.flatMap((g) => g.rows).find((r) => r.id === 'act.move')!;
  assert.deepEqual(move.keys, ['Enter', 'Num Enter']);
  assert.equal(formatBinding({ code: 'KeyF', mod: true }, true), '⌘+F');
  assert.equal(formatBinding({ code: 'ArrowLeft', alt: true }), 'Alt+←');
  // The actions the brief requires are all reachable by key.
  for (const id of [
    'nav.parent',
    'nav.child',
    'nav.prevSibling',
    'nav.nextSibling',
    'nav.nextBranch',
    'nav.nextLabel',
    'nav.leaf',
    'nav.back',
    'nav.forward',
    'act.move',
    'act.moveSummary',
    'act.fork',
    'act.clone',
    'act.label',
    'act.clearLabel',
    'act.copy',
    'act.continue',
    'act.context',
    'act.menu',
    'help',
  ])
    assert.ok(
      KEYMAP.some((c) => c.id === id && c.bindings.length),
      id,
    );
});

test('aria labels say kind, text, label, path state, branching and age', () => {
  const now = 10 * 3600_000;
  const n: NodeView = { ...base, label: 'v1', tools: ['edit'], model: 'claude-x', time: now - 5 * 60_000 };
  assert.equal(
    nodeAriaLabel(n, { isLeaf: false, onPath: true, children: 3 }, now),
    'Assistant message: assistant: Fixed the Parser bug, label v1, on the current path, branch point with 3 branches, tools edit, model claude-x, 5 min ago',
  );
  assert.equal(
    nodeAriaLabel({ ...base, time: now, error: true }, { isLeaf: true, onPath: true, children: 0, hit: true }, now),
    'Assistant message: assistant: Fixed the Parser bug, current leaf, ended with an error, find match, just now',
  );
  assert.equal(
    nodeAriaLabel(
      { ...base, kind: 'compaction', text: '' },
      { isLeaf: false, onPath: false, children: 1, folded: 12 },
      now,
    ),
    'Compaction, 12 entries folded',
    'no age when the time is unknown (0)',
  );
  const u: NodeView = { ...base, kind: 'user', text: 'user: hello\n  world' };
  assert.equal(
    segmentAriaLabel(u, base, 12, true, 2),
    '12 entries collapsed, from User message: user: hello world to Assistant message: assistant: Fixed the Parser bug, on the current path, 2 find matches inside',
  );
  assert.equal(relativeTime(0, 3 * 86400_000), '3 d ago');
  assert.equal(relativeTime(0, 400 * 86400_000), '1970-01-01');
});
