import type { CDPSession } from 'rebrowser-puppeteer-core';
import { serialisePage, withFramesInlined } from './page-serialisation';

/** A CDP session answering DOM.getDocument and DOM.getOuterHTML from a fixed tree, as Chromium would for a page. */
function fakeSession(root: object, outerHtml: Record<number, string>): CDPSession {
  return {
    send: async (method: string, params?: { nodeId?: number; depth?: number }) => {
      if (method === 'DOM.getDocument') return { root: params?.depth === 0 ? { nodeId: 1, nodeName: '#document' } : root };
      if (method === 'DOM.getOuterHTML') return { outerHTML: outerHtml[params!.nodeId!] };
      return {};
    },
  } as unknown as CDPSession;
}

describe('page serialisation', () => {
  const PAGE = 'https://example.com/page';

  it('inlines a same-origin frame in place of its iframe and lists one of another origin', async () => {
    const root = {
      nodeId: 1,
      nodeName: '#document',
      documentURL: PAGE,
      children: [
        {
          nodeId: 2,
          nodeName: 'HTML',
          children: [
            { nodeId: 3, nodeName: 'IFRAME', contentDocument: { nodeId: 10, nodeName: '#document', documentURL: 'https://example.com/f' } },
            {
              nodeId: 4,
              nodeName: 'IFRAME',
              contentDocument: { nodeId: 11, nodeName: '#document', documentURL: 'https://other.example/w' },
            },
          ],
        },
      ],
    };
    const html = '<html><body><p>a</p><iframe src="/f"></iframe><iframe src="https://other.example/w"></iframe></body></html>';
    const page = await serialisePage(fakeSession(root, { 1: html, 10: '<html><body><p>framed</p></body></html>' }), PAGE);
    expect(page.html).toContain('<div data-frame-src="https://example.com/f"><p>framed</p></div>');
    expect(page.otherOriginFrames).toEqual(['https://other.example/w']);
    expect(page.unmatchedFrameDocuments).toBe(0);
  });

  it('says so, rather than guessing, when the HTML and the DOM disagree on how many frames a document has', async () => {
    const root = {
      nodeId: 1,
      nodeName: '#document',
      documentURL: PAGE,
      children: [
        { nodeId: 3, nodeName: 'IFRAME', contentDocument: { nodeId: 10, nodeName: '#document', documentURL: 'https://example.com/f' } },
      ],
    };
    const html = '<html><body><iframe src="/f"></iframe><iframe src="/g"></iframe></body></html>';
    const page = await serialisePage(fakeSession(root, { 1: html, 10: '<p>framed</p>' }), PAGE);
    expect(page.html).toBe(html);
    expect(page.unmatchedFrameDocuments).toBe(1);
  });

  it('writes frames read from other origins in place of their iframes, by the URL they were framed at', () => {
    const html =
      '<body><p>before</p><iframe src="https://other.example/w#top"></iframe><iframe src="https://third.example/"></iframe></body>';
    const out = withFramesInlined(html, PAGE, new Map([['https://other.example/w#top', '<html><body><p>widget</p></body></html>']]));
    expect(out).toContain('<div data-frame-src="https://other.example/w#top"><p>widget</p></div>');
    expect(out).toContain('<iframe src="https://third.example/"></iframe>');
  });
});
