// The host validates everything the (untrusted) webview sends.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { validateBody, validateWebviewMessage } from '../src/protocolValidation.js';
import type {
  ContextView,
  EntryDetails,
  Replies,
  RequestBody,
  RequestFn,
  RequestHandlers,
  RequestKind,
} from '../src/protocol.js';
import { dispatch } from '../src/shared/messaging.js';

/** Compile-time equality (checked by `tsc`, which type-checks the tests). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

describe('webview message validation', () => {
  const ok = (m: unknown) => assert.equal(validateWebviewMessage(m).ok, true, JSON.stringify(m));
  const bad = (m: unknown, why?: RegExp) => {
    const r = validateWebviewMessage(m);
    assert.equal(r.ok, false, JSON.stringify(m));
    if (why && !r.ok) assert.match(r.reason, why);
  };

  it('accepts the protocol', () => {
    ok({ type: 'ready' });
    ok({ type: 'shown' });
    ok({ type: 'selected', id: 'abcd1234' });
    ok({ type: 'selected', id: null });
    ok({ type: 'request', seq: 1, body: { kind: 'moveTo', id: 'abcd1234' } });
    ok({ type: 'request', seq: 2, body: { kind: 'moveTo', id: null } });
    ok({ type: 'request', seq: 3, body: { kind: 'setLabel', id: 'a', label: 'x' } });
    ok({ type: 'request', seq: 4, body: { kind: 'setLabel', id: 'a' } });
    ok({ type: 'request', seq: 5, body: { kind: 'moveWithSummary', id: 'a', summary: 's', previewId: 'p1' } });
  });

  it('rejects unknown types, unknown kinds, wrong shapes, extra fields and paths', () => {
    bad(null);
    bad('ready');
    bad({ type: 'eval', code: 'x' }, /unknown message type/);
    bad({ type: 'ready', extra: 1 }, /unexpected field/);
    bad({ type: 'shown', file: '/etc/passwd' }, /unexpected field/);
    bad({ type: 'request', seq: -1, body: { kind: 'moveTo', id: 'a' } }, /seq/);
    bad({ type: 'request', seq: 1.5, body: { kind: 'moveTo', id: 'a' } }, /seq/);
    bad({ type: 'request', seq: 1, body: { kind: 'deleteFile', id: 'a' } }, /unknown request kind/);
    bad({ type: 'request', seq: 1, body: { kind: 'moveTo' } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: 'moveTo', id: '../../etc/passwd' } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: 'fork', id: '/home/u/.pi/agent/sessions/x.jsonl' } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: 'fork', id: 'a', path: '/tmp/x' } }, /unexpected field "path"/);
    bad({ type: 'request', seq: 1, body: { kind: 'setLabel', id: 'a', label: 5 } }, /label/);
    bad({ type: 'request', seq: 1, body: { kind: 'rename', name: 'x'.repeat(10_000) } }, /name/);
    bad(
      { type: 'request', seq: 1, body: { kind: 'moveWithSummary', id: 'a', summary: 'x'.repeat(2_000_000) } },
      /summary/,
    );
    bad({ type: 'request', seq: 1, body: { kind: 'getEntry', id: 'a'.repeat(200) } }, /id/);
    bad({ type: 'request', seq: 1, body: { kind: '__proto__' } });
    bad({ type: 'request', seq: 1, body: { kind: 'compactAt', id: 'a' } }, /unknown request kind/);
    bad({ type: 'request', seq: 1, body: Object.assign(Object.create({ kind: 'moveTo' }), { id: 'a' }) });
  });

  it('refuses code-view requests that name anything but ids, small indexes and the known targets', () => {
    bad({ type: 'request', seq: 1, body: { kind: 'openChange', id: 'a', index: -1 } }, /index/);
    bad({ type: 'request', seq: 1, body: { kind: 'openChange', id: 'a', index: 1.5 } }, /index/);
    bad(
      { type: 'request', seq: 1, body: { kind: 'openChange', id: 'a', index: 0, path: '/etc/passwd' } },
      /unexpected field "path"/,
    );
    bad({ type: 'request', seq: 1, body: { kind: 'compare', id: 'a', other: '../x' } }, /other/);
    bad({ type: 'request', seq: 1, body: { kind: 'compare', id: 'a' } }, /other/);
    bad({ type: 'request', seq: 1, body: { kind: 'exportBranch', id: 'a', to: 'file' } }, /to must be/);
    bad({ type: 'request', seq: 1, body: { kind: 'setHidden', id: 'a', hidden: 'yes' } }, /hidden/);
    bad({ type: 'request', seq: 1, body: { kind: 'openLink', token: '/home/u/s.jsonl' } }, /token/);
    bad({ type: 'request', seq: 1, body: { kind: 'openLink', token: 'abc', file: 'x' } }, /unexpected field "file"/);
  });

  it('refuses an ask that is not an entry id, a bounded non-empty prompt and a model as pi names it', () => {
    ok({ type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: 'why?' } });
    ok({
      type: 'request',
      seq: 1,
      body: {
        kind: 'askFrom',
        id: 'a1',
        prompt: 'x'.repeat(100_000),
        model: { provider: 'openrouter', id: 'anthropic/claude-x' },
      },
    });
    ok({ type: 'request', seq: 1, body: { kind: 'cancelAsk' } });
    ok({ type: 'request', seq: 1, body: { kind: 'listModels' } });
    bad({ type: 'request', seq: 1, body: { kind: 'askFrom', id: '../x', prompt: 'p' } }, /id must be an entry id/);
    bad({ type: 'request', seq: 1, body: { kind: 'askFrom', id: null, prompt: 'p' } }, /id must be an entry id/);
    bad({ type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1' } }, /prompt/);
    bad(
      { type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: ' \n ' } },
      /prompt must be a non-empty string/,
    );
    bad(
      { type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: 'x'.repeat(100_001) } },
      /at most 100000/,
    );
    bad(
      { type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: 'p', model: 'anthropic/claude' } },
      /model must be an object/,
    );
    bad(
      { type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: 'p', model: { provider: 'a' } } },
      /model must be/,
    );
    bad(
      { type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: 'p', model: { provider: 'a', id: '' } } },
      /model must be/,
    );
    bad(
      {
        type: 'request',
        seq: 1,
        body: { kind: 'askFrom', id: 'a1', prompt: 'p', model: { provider: 'a', id: 'b\n--x' } },
      },
      /one-line/,
    );
    bad(
      {
        type: 'request',
        seq: 1,
        body: { kind: 'askFrom', id: 'a1', prompt: 'p', model: { provider: 'a', id: 'x'.repeat(201) } },
      },
      /model must be/,
    );
    bad(
      {
        type: 'request',
        seq: 1,
        body: { kind: 'askFrom', id: 'a1', prompt: 'p', model: { provider: 'a', id: 'b', apiKey: 'k' } },
      },
      /model: unexpected field "apiKey"/,
    );
    bad(
      { type: 'request', seq: 1, body: { kind: 'askFrom', id: 'a1', prompt: 'p', file: '/x.jsonl' } },
      /unexpected field "file"/,
    );
    bad({ type: 'request', seq: 1, body: { kind: 'cancelAsk', id: 'a1' } }, /unexpected field "id"/);
    bad({ type: 'request', seq: 1, body: { kind: 'listModels', cwd: '/etc' } }, /unexpected field "cwd"/);
    // Try variants names a node (and offers the box's text), never a folder or a session.
    ok({ type: 'request', seq: 1, body: { kind: 'tryVariants', id: 'a1' } });
    ok({ type: 'request', seq: 1, body: { kind: 'tryVariants', id: 'a1', prompt: 'try' } });
    bad({ type: 'request', seq: 1, body: { kind: 'tryVariants', id: '../x' } }, /id/);
    bad(
      { type: 'request', seq: 1, body: { kind: 'tryVariants', id: 'a1', folder: '/tmp' } },
      /unexpected field "folder"/,
    );
    bad({ type: 'request', seq: 1, body: { kind: 'tryVariants', id: 'a1', prompt: 'x'.repeat(100_001) } }, /prompt/);
  });

  it('refuses compaction requests that carry more than a focus, or a commit without its preview or text', () => {
    bad({ type: 'request', seq: 1, body: { kind: 'compactPreview', id: 'a' } }, /unexpected field "id"/);
    bad({ type: 'request', seq: 1, body: { kind: 'compactPreview', focus: 3 } }, /focus/);
    bad({ type: 'request', seq: 1, body: { kind: 'compactCommit', previewId: '../p', summary: 's' } }, /previewId/);
    bad({ type: 'request', seq: 1, body: { kind: 'compactCommit', previewId: 'p1', summary: '  ' } }, /summary/);
    bad(
      { type: 'request', seq: 1, body: { kind: 'compactCommit', previewId: 'p1', summary: 's', file: '/x' } },
      /unexpected field "file"/,
    );
  });
});

describe('typed replies', () => {
  /** One request of every kind with every field it may carry. */
  const samples: { [K in RequestKind]: Extract<RequestBody, { kind: K }> } = {
    getEntry: { kind: 'getEntry', id: 'a1' },
    getContext: { kind: 'getContext', id: null },
    moveTo: { kind: 'moveTo', id: 'a1' },
    summaryPreview: { kind: 'summaryPreview', id: 'a1', focus: 'tests' },
    moveWithSummary: { kind: 'moveWithSummary', id: 'a1', summary: 's', previewId: 'p1' },
    cancelPreview: { kind: 'cancelPreview', previewId: 'p1' },
    compactPreview: { kind: 'compactPreview', focus: 'tests' },
    compactCommit: { kind: 'compactCommit', previewId: 'p1', summary: 's' },
    fork: { kind: 'fork', id: 'a1' },
    clone: { kind: 'clone', id: 'a1' },
    setLabel: { kind: 'setLabel', id: 'a1', label: 'x' },
    rename: { kind: 'rename', name: 'n' },
    copyText: { kind: 'copyText', id: 'a1' },
    continueInPi: { kind: 'continueInPi', id: 'a1', text: 't' },
    setupSummaryModel: { kind: 'setupSummaryModel' },
    getChanges: { kind: 'getChanges', id: 'a1' },
    openChange: { kind: 'openChange', id: 'a1', index: 2 },
    branchFiles: { kind: 'branchFiles', id: 'a1' },
    compare: { kind: 'compare', id: 'a1', other: null },
    exportBranch: { kind: 'exportBranch', id: 'a1', to: 'clipboard' },
    setHidden: { kind: 'setHidden', id: 'a1', hidden: true },
    openLink: { kind: 'openLink', token: 'abc123' },
    codeState: { kind: 'codeState', id: 'a1' },
    openCodeDiff: { kind: 'openCodeDiff', id: 'a1', other: 'b2' },
    restoreCode: { kind: 'restoreCode', id: 'a1' },
    undoRestore: { kind: 'undoRestore', redo: true },
    askFrom: {
      kind: 'askFrom',
      id: 'a1',
      prompt: 'and now?',
      model: { provider: 'anthropic', id: 'claude-sonnet-4-5' },
    },
    cancelAsk: { kind: 'cancelAsk' },
    listModels: { kind: 'listModels' },
    tryVariants: { kind: 'tryVariants', id: 'a1', prompt: 'try it' },
  };
  const entry: EntryDetails = { id: 'a1', entry: {}, truncated: false, onPath: true, isLeaf: false };
  const context: ContextView = { leafId: null, messages: [], tokens: 0, thinkingLevel: 'off', model: null };
  const seen: [RequestKind, number][] = [];
  const reply =
    <K extends RequestKind>(kind: K, r: Replies[K]) =>
    (_b: unknown, seq: number) => (seen.push([kind, seq]), Promise.resolve(r));
  const handlers: RequestHandlers<undefined> = {
    getEntry: reply('getEntry', entry),
    getContext: reply('getContext', context),
    moveTo: reply('moveTo', { leafId: 'a1', moved: true }),
    summaryPreview: reply('summaryPreview', {
      previewId: 'p1',
      summary: 's',
      details: { readFiles: [], modifiedFiles: [] },
      entryCount: 2,
    }),
    moveWithSummary: reply('moveWithSummary', { cancelled: true }),
    cancelPreview: reply('cancelPreview', {}),
    compactPreview: reply('compactPreview', {
      previewId: 'p1',
      summary: 's',
      details: { readFiles: [], modifiedFiles: [] },
      tokensBefore: 100,
    }),
    compactCommit: reply('compactCommit', { entryId: 'c1' }),
    fork: reply('fork', { fileName: 'f.jsonl', text: 'hi' }),
    clone: reply('clone', { fileName: 'c.jsonl' }),
    setLabel: reply('setLabel', { label: 'x' }),
    rename: reply('rename', { name: null }),
    copyText: reply('copyText', { copied: 2 }),
    continueInPi: reply('continueInPi', {}),
    setupSummaryModel: reply('setupSummaryModel', {}),
    getChanges: reply('getChanges', {
      entryId: 'a1',
      changes: [{ index: 0, tool: 'edit', path: 'a.ts', added: 1, removed: 1, diff: true }],
    }),
    openChange: reply('openChange', {}),
    branchFiles: reply('branchFiles', { entries: 0, files: [] }),
    compare: reply('compare', {}),
    exportBranch: reply('exportBranch', { entries: 3, chars: 100 }),
    setHidden: reply('setHidden', { hidden: ['a1'] }),
    openLink: reply('openLink', {}),
    codeState: reply('codeState', { how: 'snapshot', files: [{ path: 'a.ts', status: 'modified' }], notes: [] }),
    openCodeDiff: reply('openCodeDiff', { files: 1 }),
    restoreCode: reply('restoreCode', { restored: true }),
    undoRestore: reply('undoRestore', {}),
    askFrom: reply('askFrom', { answerId: 'b2', leafId: 'b2', via: 'headless', pid: 42 }),
    cancelAsk: reply('cancelAsk', { cancelling: false }),
    listModels: reply('listModels', {
      models: [{ provider: 'anthropic', id: 'claude-sonnet-4-5', name: 'Claude Sonnet 4.5' }],
    }),
    tryVariants: reply('tryVariants', { started: true }),
  };

  it('has one reply type per request kind, and request() resolves to the reply of its kind', async () => {
    expectType<Equal<keyof Replies, RequestKind>>();
    const request: RequestFn = (body) => dispatch(handlers, body, 7, undefined) as never;
    expectType<Equal<Awaited<ReturnType<typeof request<{ kind: 'getEntry'; id: string }>>>, EntryDetails>>();
    expectType<Equal<Awaited<ReturnType<typeof request<{ kind: 'getContext'; id: null }>>>, ContextView>>();
    expectType<
      Equal<
        Awaited<ReturnType<typeof request<{ kind: 'moveWithSummary'; id: string; summary: string }>>>,
        Replies['moveWithSummary']
      >
    >();
    const e = await request({ kind: 'getEntry', id: 'a1' });
    assert.equal(e.isLeaf, false, 'typed as EntryDetails');
    // @ts-expect-error a getEntry reply has no `moved`
    assert.equal(e.moved, undefined);
  });

  // (a sample and a handler for every kind: their types say so, and tsc checks the tests)
  it('dispatches every kind to its own handler, and the validator accepts every field of every kind', async () => {
    for (const [kind, body] of Object.entries(samples)) {
      assert.equal(validateBody(body).ok, true, kind);
      await dispatch(handlers, body, 3, undefined);
      assert.deepEqual(seen.pop(), [kind, 3]);
    }
  });

  it('a handler that resolves to the wrong reply type does not compile, for that reason', () => {
    // The compiler on handlers as the host writes them: the two wrong replies are its only errors, and
    // each names the reply type it breaks (an @ts-expect-error would pass for any error at all).
    const errors = compileErrors(`import type { RequestHandlers } from './src/protocol';
export const handlers: Pick<RequestHandlers<undefined>, 'getEntry' | 'fork' | 'clone'> = {
  getEntry: async () => ({ leafId: null, moved: true }),
  fork: async () => ({ text: 'x' }),
  clone: async () => ({ fileName: 'c.jsonl' }),
};
`);
    assert.deepEqual(
      errors.map((e) => e.line),
      [3, 4],
      errors.map((e) => `${e.line}: ${e.text}`).join('\n'),
    );
    assert.match(errors[0].text, /EntryDetails/);
    assert.match(errors[1].text, /fileName/);
  });
});

/** The compiler's errors (1-based line, text) for `source` as a file at the repository's root. */
function compileErrors(source: string): { line: number; text: string }[] {
  const file = join(__dirname, '..', 'wrongReplies.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    lib: ['lib.es2023.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, source, lang) : getSourceFile.call(host, f, lang, ...rest);
  host.fileExists = (f) => f === file || fileExists.call(host, f);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ({
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}
