// Session text as sanitized Markdown: markdown-it with raw HTML off, links only http(s) (VS Code opens
// them outside the webview), images only as inline data: URIs of raster types. The output is HTML built
// by markdown-it's escaping renderer, so text from the session can never become markup or script.
import MarkdownIt from 'markdown-it';

const SAFE_LINK = /^https?:\/\//i;
const SAFE_IMAGE = /^data:image\/(png|jpe?g|gif|webp);base64,[A-Za-z0-9+/=\s]+$/i;

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
md.validateLink = (url: string) => SAFE_LINK.test(url.trim()) || SAFE_IMAGE.test(url.trim());

const defaultImage = md.renderer.rules.image!;
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const src = String(tokens[idx].attrGet('src') ?? '');
  if (!SAFE_IMAGE.test(src)) return md.utils.escapeHtml(tokens[idx].content || '[image]');
  return defaultImage(tokens, idx, options, env, self);
};
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const href = String(tokens[idx].attrGet('href') ?? '');
  // A data: URI passes validateLink for images only; as a link it is shown as text.
  if (!SAFE_LINK.test(href)) tokens[idx].attrSet('href', '#');
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  tokens[idx].attrSet('title', href);
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/** Puts rendered Markdown into `el`, then removes anything a renderer bug could have let through. */
export function setMarkdown(el: HTMLElement, text: string): void {
  const tpl = document.createElement('template');
  tpl.innerHTML = renderMarkdown(text);
  const walker = document.createTreeWalker(tpl.content, NodeFilter.SHOW_ELEMENT);
  const bad: Element[] = [];
  for (let n = walker.nextNode() as Element | null; n; n = walker.nextNode() as Element | null) {
    const tag = n.tagName.toLowerCase();
    if (['script', 'style', 'iframe', 'object', 'embed', 'link', 'meta', 'form', 'svg', 'math'].includes(tag))
      bad.push(n);
    for (const a of [...n.attributes]) {
      const v = a.value.trim();
      if (a.name.startsWith('on') || a.name === 'style' || a.name === 'srcset') n.removeAttribute(a.name);
      else if ((a.name === 'href' && !SAFE_LINK.test(v) && v !== '#') || (a.name === 'src' && !SAFE_IMAGE.test(v)))
        n.removeAttribute(a.name);
    }
  }
  for (const b of bad) b.remove();
  el.replaceChildren(tpl.content);
}

export function isSafeImage(uri: string): boolean {
  return SAFE_IMAGE.test(uri);
}
