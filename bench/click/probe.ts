// The probe the click benchmark puts into every frame (a Playwright init script, so it is in place
// before the webview's own script runs); it acts only in pi-tree's webview: the inner frame of a
// webview whose outer frame names extensionId=pi-tree.pi-tree. VS Code navigates that frame from
// about:blank to fake.html and then document.write()s the webview's HTML: the window and its
// prototypes survive that, listeners and observers on the first document do not, so the probe hooks
// prototypes. It records wall-clock times (Date.now: the same clock in every frame and process):
// each host message's arrival and the end of its handling, and each graph render (the app's
// performance mark) with the frame that painted it. A plain string: it runs in the page, not
// through tsx's transforms.
export const PROBE = `(() => {
  // tsx (esbuild keepNames) wraps named functions of the bench's page.evaluate code in __name().
  window.__name ??= (f) => f;
  const isHost = (w) => /\\/webview\\/browser\\/pre\\/index\\.html$/.test(w.location.pathname) && w.location.search.includes('extensionId=pi-tree.pi-tree');
  // VS Code's webview host frame (pre/index.html) of a pi-tree webview: when it was made.
  try {
    if (isHost(window)) window.__clickHostFrame ??= Date.now();
  } catch {}
  let ours = false;
  let host;
  try {
    ours = window.parent !== window && isHost(parent);
    host = parent;
  } catch {}
  if (!ours || window.__clickProbe) return;
  const rec = (window.__clickProbe = { messages: [], renders: [], start: {} });
  // The webview's own start: its host frame made, its content frame made, VS Code's API script run
  // (the HTML written), the bundle calling acquireVsCodeApi (its modules evaluated), \`ready\` posted.
  rec.start.hostFrame = host.__clickHostFrame;
  rec.start.contentFrame = Date.now();
  const add = EventTarget.prototype.addEventListener;
  let api;
  Object.defineProperty(window, 'acquireVsCodeApi', {
    configurable: true,
    get: () => api,
    set: (f) => {
      rec.start.apiScript ??= Date.now();
      // The written document's load event: VS Code's host frame shows the frame and hands it the host's
      // messages only then (or 200 ms after the write).
      add.call(window, 'load', () => (rec.start.loaded ??= Date.now()));
      api = () => {
        rec.start.acquired ??= Date.now();
        const a = f();
        return { getState: a.getState, setState: a.setState, postMessage: (m, t) => { if (m && m.type === 'ready') rec.start.ready ??= Date.now(); return a.postMessage(m, t); } };
      };
    },
  });
  // After the frame that shows the DOM as it is now has been painted (the same as bench/webview.ts).
  rec.afterPaint = (cb) => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => cb(Date.now()); ch.port2.postMessage(0); });
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (type === 'message' && this === window && typeof listener === 'function') {
      const inner = listener;
      listener = function (ev) {
        const d = ev.data;
        const m = { at: Date.now(), type: d && typeof d.type === 'string' ? d.type : '?', nodes: d && Array.isArray(d.nodes) ? d.nodes.length : 0 };
        try { return inner.call(this, ev); } finally { m.handled = Date.now(); if (m.type !== '?') rec.messages.push(m); }
      };
    }
    return add.call(this, type, listener, options);
  };
  const mark = Performance.prototype.mark;
  Performance.prototype.mark = function (name, ...rest) {
    const r = mark.call(this, name, ...rest);
    if (name === 'pi-tree:rendered') {
      const x = { at: Date.now(), nodes: document.querySelectorAll('.graph svg.scene g.node').length, leaf: document.querySelector('.graph svg.scene g.node.leaf')?.getAttribute('data-entry-id') ?? null };
      rec.renders.push(x);
      rec.afterPaint((t) => (x.painted = t));
    }
    return r;
  };
})();`;
