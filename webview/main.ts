// Entry of the tree webview bundle (dist/webview.js + dist/webview.css). Only the UI-kit components
// that are used are imported, to keep the bundle small. The test build (__PI_TREE_TEST__, see
// scripts/build.mjs) also exposes window.__piTree for the browser tests and the benchmark.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import './styles.css';
import './outline/outline.css';
import './graph/graph.css';
import './details/details.css';
import './ui/overlays.css';
import './highContrast.css';
import './compareActions.css';
import './rows.css';
import './hoverCard.css';
import './variants/variants.css';
import { App } from './app/app';
import type { VsCodeApi } from './app/hostChannel';
import { exposeTestHooks } from './app/testHooks';
import { CompareApp, type CompareApi } from './compare/compareApp';
import { exposeCompareHooks } from './compare/testHooks';
import { VariantsApp, type VariantsApi } from './variants/variantsApp';
import { exposeVariantsHooks } from './variants/testHooks';

declare function acquireVsCodeApi(): VsCodeApi;
/** Replaced by esbuild: true in the test build only. */
declare const __PI_TREE_TEST__: boolean;

const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
root.classList.add('app');
if (document.body.dataset.view === 'compare') {
  // The compare view (a second panel on the same bundle, see src/compareProtocol.ts).
  const compare = new CompareApp(root, acquireVsCodeApi() as unknown as CompareApi);
  if (__PI_TREE_TEST__) exposeCompareHooks(compare);
  compare.start(window);
} else if (document.body.dataset.view === 'variants') {
  // The variants view (a panel per run on the same bundle, see src/variantsProtocol.ts).
  const variants = new VariantsApp(root, acquireVsCodeApi() as unknown as VariantsApi);
  if (__PI_TREE_TEST__) exposeVariantsHooks(variants);
  variants.start(window);
} else {
  const app = new App(root, acquireVsCodeApi());
  if (__PI_TREE_TEST__) exposeTestHooks(app);
  app.start();
}
