// The variants view: one webview panel per run (the tree's bundle, started with data-view="variants"),
// the variants side by side. It gets the run as it is when it is ready (and again each time it becomes
// visible: its context is not kept while hidden), then each variant's change and its answer's text as
// it streams. Its requests pass the gate (variantsProtocol.ts) and go to variantRequests.ts.
import * as vscode from 'vscode';
import { validateVariantsMessage, type VariantsHostMessage } from '../../variantsProtocol.js';
import { setPanelDocument } from '../panels/panelHtml.js';
import { WebviewGate } from '../panels/webviewGate.js';
import { log } from '../platform/log.js';
import { answer, refuse } from '../platform/replies.js';
import type { AdoptDeps } from './variantAdopt.js';
import { handleVariantRequest } from './variantRequests.js';
import type { VariantsRunState } from './variantsRunState.js';

export const VARIANTS_VIEW_TYPE = 'piTree.variants';

export class VariantsPanel implements vscode.Disposable {
  private readonly gate = new WebviewGate(undefined, undefined, validateVariantsMessage);
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private disposed = false;
  onDidDispose: (() => void) | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly state: VariantsRunState,
    private readonly deps: AdoptDeps & { extensionUri: vscode.Uri },
  ) {
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'pi-tree.svg');
    setPanelDocument(panel, deps.extensionUri, panel.title, 'variants');
    const off = state.on((e) => {
      if (!this.ready) return;
      if (e.kind === 'delta') this.post({ type: 'variantDelta', index: e.index, delta: e.delta });
      else this.post({ type: 'variant', variant: state.card(e.index) });
    });
    this.disposables.push(
      { dispose: off },
      panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  private post(m: VariantsHostMessage): void {
    if (this.disposed) return;
    void this.panel.webview
      .postMessage(m)
      .then(undefined, (e) => log().warn(`variants postMessage failed: ${String(e)}`));
  }

  private async onMessage(raw: unknown): Promise<void> {
    const check = this.gate.check(raw);
    if (!check.ok) return refuse(check, (r) => this.post(r), 'variants webview');
    const m = check.message;
    if (m.type === 'ready') {
      this.ready = true;
      return this.post({ type: 'variantsView', info: this.state.info, variants: this.state.cards() });
    }
    await answer(
      m.seq,
      `variants ${m.body.kind}`,
      () => handleVariantRequest(m.body, this.state, this.deps),
      (r) => this.post(r),
    );
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables) d.dispose();
    this.onDidDispose?.();
  }
}

/** Opens variants views and closes them with the extension. Closing a view leaves its run going. */
export class VariantsPanels implements vscode.Disposable {
  private readonly open = new Set<VariantsPanel>();

  constructor(private readonly deps: AdoptDeps & { extensionUri: vscode.Uri }) {}

  show(state: VariantsRunState): VariantsPanel {
    const title = `Variants: ${state.info.prompt.replace(/\s+/g, ' ').slice(0, 40)}`;
    const panel = vscode.window.createWebviewPanel(VARIANTS_VIEW_TYPE, title, vscode.ViewColumn.Active, {
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    const p = new VariantsPanel(panel, state, this.deps);
    this.open.add(p);
    p.onDidDispose = () => this.open.delete(p);
    return p;
  }

  dispose(): void {
    for (const p of [...this.open]) p.panel.dispose();
  }
}
