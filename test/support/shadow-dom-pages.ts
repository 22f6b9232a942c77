import http from 'node:http';
import { listenOnLoopback } from './loopback-server';

/**
 * Pages whose text a reader sees only in the rendered, flat tree (issue 67): web components with
 * slots, nested and closed shadow roots, a page that is only a shadow root, declarative shadow
 * roots, and frames 1–3 deep, one of another origin and one that frames itself. Each page lists
 * the text it shows, in reading order. Everything is served from 127.0.0.1, scripts from the same
 * origin behind a `default-src 'self'` policy.
 */
export interface ShadowDomPage {
  name: string;
  /** The visible text's markers, in the order a reader sees them. */
  visible: string[];
}

const COMPONENTS = `
const define = (name, mode, html) => customElements.define(name, class extends HTMLElement {
  constructor() { super(); this.attachShadow({ mode }).innerHTML = html; }
});
define('x-card', 'open', '<h2>Card heading</h2><slot name="lead"></slot><slot></slot><p>Card footer</p>');
define('x-outer', 'open', '<p>Outer shadow text</p><x-inner><span>Slotted into inner</span></x-inner><slot></slot>');
define('x-inner', 'open', '<p>Inner shadow text</p><slot></slot>');
define('x-closed', 'closed', '<p>Closed shadow text</p><slot></slot>');
define('x-app', 'open', '<main><h1>App shell title</h1><p>Everything here lives in a shadow root.</p></main>');
`;

const PAGES: Record<string, { body: string; visible: string[] }> = {
  plain: {
    body: '<h1>Plain page</h1><p>First paragraph.</p><p>Second paragraph.</p>',
    visible: ['Plain page', 'First paragraph', 'Second paragraph'],
  },
  slots: {
    body: '<p>Before the card.</p><x-card><p>Default slotted text</p><p slot="lead">Lead slotted text</p></x-card><p>After the card.</p>',
    visible: ['Before the card', 'Card heading', 'Lead slotted text', 'Default slotted text', 'Card footer', 'After the card'],
  },
  nested: {
    body: '<x-outer><p>Light child of outer</p></x-outer>',
    visible: ['Outer shadow text', 'Inner shadow text', 'Slotted into inner', 'Light child of outer'],
  },
  closed: {
    body: '<x-closed><p>Light child of closed</p></x-closed>',
    visible: ['Closed shadow text', 'Light child of closed'],
  },
  'shadow-only': { body: '<x-app></x-app>', visible: ['App shell title', 'Everything here lives in a shadow root'] },
  declarative: {
    body: '<x-decl><template shadowrootmode="open"><h2>Declarative heading</h2><slot></slot></template><p>Declarative light text</p></x-decl>',
    visible: ['Declarative heading', 'Declarative light text'],
  },
  frames: {
    body: '<p>Top of the framing page.</p><iframe src="/frame/1"></iframe><p>Bottom of the framing page.</p>',
    visible: ['Top of the framing page', 'Frame depth 1', 'Frame depth 2', 'Frame depth 3', 'Bottom of the framing page'],
  },
  'frame-loop': {
    body: '<p>A page that frames itself.</p><iframe src="/page/frame-loop"></iframe>',
    visible: ['A page that frames itself'],
  },
};

export const SHADOW_DOM_PAGES: ShadowDomPage[] = Object.entries(PAGES).map(([name, page]) => ({ name, visible: page.visible }));

function document(body: string, frameSource = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shadow DOM page</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'${frameSource ? `; frame-src 'self' ${frameSource}` : ''}"><script src="/components.js"></script></head>
<body>${body}</body></html>`;
}

export interface ShadowDomSite {
  url: string;
  port: number;
  /** A second origin (another port) whose page the `cross-origin` frame shows. */
  otherUrl: string;
  otherPort: number;
  close(): Promise<void>;
}

/** The page set on 127.0.0.1, and a second origin for a cross-origin frame. */
export async function startShadowDomSite(): Promise<ShadowDomSite> {
  const other = await listenOnLoopback(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(document('<p>Text of another origin</p>'));
    }),
  );
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    const html = (body: string, frameSource = '') =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(document(body, frameSource));
    if (path === '/components.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(COMPONENTS);
    const frame = /^\/frame\/(\d)$/.exec(path);
    if (frame) {
      const depth = Number(frame[1]);
      return html(`<p>Frame depth ${depth}</p>${depth < 3 ? `<iframe src="/frame/${depth + 1}"></iframe>` : ''}`);
    }
    if (path === '/page/cross-origin')
      return html(`<p>Before the other origin.</p><iframe src="${other.url}/"></iframe><p>After the other origin.</p>`, other.url);
    // Not in the page set: a frame of an origin the SSRF guard refuses (a loopback port no test allows) beside an allowed one.
    if (path === '/guarded/frames')
      return html(
        `<p>Allowed frame next.</p><iframe src="${other.url}/"></iframe><p>Refused frame next.</p><iframe src="http://127.0.0.1:9/"></iframe><p>End.</p>`,
        `${other.url} http://127.0.0.1:9`,
      );
    const page = PAGES[path.replace(/^\/page\//, '')];
    if (page) return html(page.body);
    res.writeHead(404).end();
  });
  const site = await listenOnLoopback(server);
  return {
    url: site.url,
    port: site.port,
    otherUrl: other.url,
    otherPort: other.port,
    close: async () => {
      await site.close();
      await other.close();
    },
  };
}

/** The share of a page's visible markers a text holds, and whether those it holds are in reading order. */
export function visibleRecall(page: ShadowDomPage, text: string): { recall: number; inOrder: boolean } {
  const positions = page.visible.map((marker) => text.indexOf(marker));
  const found = positions.filter((at) => at >= 0);
  return { recall: found.length / page.visible.length, inOrder: found.every((at, i) => i === 0 || at > found[i - 1]!) };
}
