// Theme colours for the canvases (CSS variables of the graph), read once per theme: reading computed
// style while the DOM is being changed forces a style recalculation on the spot. VS Code applies a theme
// by setting variables on <html> and classes on <body>; a change clears the cache and redraws.

export class ThemeColors {
  private readonly colors = new Map<string, string>();
  private style: CSSStyleDeclaration | undefined;

  constructor(
    private readonly el: HTMLElement,
    onChange: () => void,
  ) {
    const theme = new MutationObserver(() => {
      this.colors.clear();
      onChange();
    });
    theme.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
    theme.observe(document.body, { attributes: true, attributeFilter: ['style', 'class', 'data-vscode-theme-kind'] });
  }

  get(name: string, fallback: string): string {
    let v = this.colors.get(name);
    if (v === undefined) {
      this.style ??= getComputedStyle(this.el);
      v = this.style.getPropertyValue(name).trim() || fallback;
      this.colors.set(name, v);
    }
    return v;
  }
}
