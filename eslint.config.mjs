// Lint for the whole repository (npm run lint, and .ci/run). Besides typescript-eslint's recommended
// rules it enforces the layers: src/core never imports vscode, the host or the webview; the webview
// imports only the protocol and the pure shared modules (never Node, vscode, the core or the host).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const layer = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', '.tools/**', 'test-results/**', '.bench/**', '.demo/**', '.prof/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  layer(
    ['src/core/**/*.ts'],
    [
      { group: ['vscode'], message: 'src/core runs without VS Code (CLI, worker threads): no vscode import.' },
      { group: ['**/host/**', '**/webview/**', '**/cli', '**/cli/**', '**/cli.js', '**/bridge/extension/**'], message: 'src/core is the bottom layer: it imports nothing above it.' },
    ],
  ),
  layer(
    ['src/protocol.ts', 'src/protocolValidation.ts', 'src/compareProtocol.ts', 'src/shared/**/*.ts'],
    [{ group: ['node:*', 'vscode', '**/core/**', '**/host/**', '**/webview/**'], message: 'The protocol and shared modules are pure: the webview imports them.' }],
  ),
  layer(
    ['webview/**/*.ts'],
    [
      {
        group: ['node:*', 'vscode', '**/src/core/**', '**/src/host/**', '**/src/cli*', '**/src/bridge/**'],
        message: 'The webview depends only on src/protocol.ts and src/shared/ (it is untrusted and runs in a browser).',
      },
    ],
  ),
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.mjs', 'bench/**/*.mjs', 'bench/**/*.cjs', 'test/**/*.mjs'],
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
