// Entry of the tree webview bundle (dist/webview.js + dist/webview.css). Only the UI-kit components
// that are used are imported, to keep the bundle small.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import './styles.css';
import { App } from './app';
import type { VsCodeApi } from './rpc';

declare function acquireVsCodeApi(): VsCodeApi;

const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
root.classList.add('app');
new App(root, acquireVsCodeApi()).start();
