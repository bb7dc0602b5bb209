// Lint for the whole repository (npm run lint, and .ci/run). Besides typescript-eslint's recommended
// rules it enforces the layers: src/core never imports vscode, the host, the CLI, the webview or the pi
// extension (src/piExtension); src/piExtension and the CLI import the core, never vscode or the host; the host never
// imports the webview, the CLI or src/piExtension; the webview imports only the protocol and the pure shared
// modules (never Node, vscode, the core or the host).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const layer = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
/** One layer rule per folder depth under `dir` (relative imports differ by depth). */
const byDepth = (dir, depths, patterns) => depths.map((d) => layer([`${dir}/${'*/'.repeat(d - 1)}*.ts`], patterns(d)));
/** src/piExtension (pi's extension) from a file `depth` folders below src/; src/core/piClient (the client) stays allowed. */
const piExtension = (depth, message) => ({ regex: `^(\\.\\./){${depth}}piExtension(/|$)`, message });
/** Checkpoints have one door (src/core/checkpoints/index.ts): the rooms behind it are theirs. */
const checkpointsDoor = {
  group: ['**/core/checkpoints/**', '!**/core/checkpoints/index.js'],
  message: 'Import checkpoints through their door, src/core/checkpoints/index.ts.',
};

/** Variants have one door too (src/core/variants/index.ts). */
const variantsDoor = {
  group: ['**/core/variants/**', '!**/core/variants/index.js'],
  message: 'Import variants through their door, src/core/variants/index.ts.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      '.tools/**',
      'test-results/**',
      '.bench/**',
      '.demo/**',
      '.prof/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  // src/core: the bottom layer (CLI, worker threads, pi's process): nothing above it, no vscode.
  ...byDepth('src/core', [1, 2, 3], (d) => [
    { group: ['vscode'], message: 'src/core runs without VS Code (CLI, worker threads, pi): no vscode import.' },
    {
      group: ['**/host/**', '**/webview/**', '**/cli', '**/cli/**', '**/cli.js'],
      message: 'src/core is the bottom layer: it imports nothing above it.',
    },
    piExtension(d, 'src/core is the bottom layer: the pi extension (src/piExtension) sits above it.'),
  ]),
  // src/core/variants: checkpoints only through their door.
  layer(
    ['src/core/variants/*.ts'],
    [
      { group: ['vscode'], message: 'src/core runs without VS Code (CLI, worker threads, pi): no vscode import.' },
      {
        group: ['**/host/**', '**/webview/**', '**/cli', '**/cli/**', '**/cli.js'],
        message: 'src/core is the bottom layer: it imports nothing above it.',
      },
      piExtension(2, 'src/core is the bottom layer: the pi extension (src/piExtension) sits above it.'),
      { group: ['../checkpoints/**', '!../checkpoints/index.js'], message: checkpointsDoor.message },
    ],
  ),
  // src/piExtension: the extension pi loads (its own process): the core and pi's package, never VS Code, the host or the CLI.
  ...byDepth('src/piExtension', [1], () => [
    {
      group: ['vscode', '**/host/**', '**/webview/**', '**/cli', '**/cli/**', '**/cli.js'],
      message: 'src/piExtension runs inside pi: it imports only src/core, the protocol and pi.',
    },
    checkpointsDoor,
    variantsDoor,
  ]),
  // The CLI: the core, never VS Code, the host, the webview or the pi extension (it reaches pi through core/piClient).
  ...byDepth('src/cli', [1, 2], (d) => [
    { group: ['vscode', '**/host/**', '**/webview/**'], message: 'The CLI runs without VS Code: it imports src/core.' },
    piExtension(d, 'The CLI talks to pi through src/core/piClient, not the pi extension.'),
    checkpointsDoor,
    variantsDoor,
  ]),
  layer(
    ['src/cli.ts'],
    [
      {
        group: ['vscode', './host/**', './webview/**', './piExtension/**'],
        message: 'The CLI runs without VS Code: it imports src/core.',
      },
    ],
  ),
  // The host: the core and the protocol; the webview is a separate program and the pi extension another process.
  ...byDepth('src/host', [1, 2, 3], (d) => [
    {
      group: ['**/webview/**', '**/cli', '**/cli/**', '**/cli.js'],
      message: 'The host imports src/core and the protocol; the webview and the CLI are separate programs.',
    },
    piExtension(d, 'The pi extension (src/piExtension) runs in pi: the host reaches it through src/core/piClient.'),
    checkpointsDoor,
    variantsDoor,
  ]),
  layer(
    [
      'src/protocol.ts',
      'src/packedNodes.ts',
      'src/protocolValidation.ts',
      'src/compareProtocol.ts',
      'src/shared/**/*.ts',
    ],
    [
      {
        group: ['node:*', 'vscode', '**/core/**', '**/host/**', '**/webview/**'],
        message: 'The protocol and shared modules are pure: the webview imports them.',
      },
    ],
  ),
  layer(
    ['webview/**/*.ts'],
    [
      {
        group: ['node:*', 'vscode', '**/src/core/**', '**/src/host/**', '**/src/cli*', '**/src/piExtension/**'],
        message:
          'The webview depends only on src/protocol.ts (with src/packedNodes.ts) and src/shared/ (it is untrusted and runs in a browser).',
      },
    ],
  ),
  {
    files: [
      'test/**/*.ts',
      'bench/**/*.ts',
      'scripts/**/*.ts',
      'scripts/**/*.mjs',
      'bench/**/*.mjs',
      'bench/**/*.cjs',
      'test/**/*.mjs',
    ],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Plain JavaScript run by Node (scripts, bench helpers, test fixtures such as a probe extension).
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs', 'test/e2e/fixtures/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
