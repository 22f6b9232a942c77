import fc from 'fast-check';
import { isMarkdownType, markdownAlternateOf, siteMarkdownProblem, withMarkdownAccept } from './site-markdown';

describe('the site’s own markdown', () => {
  it('asks for markdown first, unless the client chose its own Accept', () => {
    expect(withMarkdownAccept(null).accept).toMatch(/^text\/markdown, /);
    expect(withMarkdownAccept({ Accept: 'text/html' })).toEqual({ Accept: 'text/html' });
    expect(isMarkdownType('text/markdown; charset=utf-8; variant=GFM')).toBe(true);
    expect(isMarkdownType('text/html')).toBe(false);
  });

  it.each([
    ['a page with a doctype', '<!DOCTYPE html><html><body><p>x</p></body></html>', 'the site answered HTML under a markdown type'],
    ['a page after a comment', '  <!-- a comment --> <html lang="en"><head></head></html>', 'the site answered HTML under a markdown type'],
    ['a fragment of markup', `<div class="a"><p>${'<span>x</span>'.repeat(50)}</p></div>`, 'the site answered HTML under a markdown type'],
    ['an empty answer', '', 'the site sent an empty markdown answer'],
    ['a binary body', 'bin\u0000ary', 'the site sent a binary body under a markdown type'],
  ])('catches %s', (_what, text, problem) => {
    expect(siteMarkdownProblem(text)).toBe(problem);
  });

  it('takes markdown with some inline HTML as markdown', () => {
    expect(
      siteMarkdownProblem(
        '# Title\n\nA paragraph with <kbd>Ctrl</kbd> and a <br> break.\n\n<details><summary>More</summary>\n\nText\n</details>\n',
      ),
    ).toBeNull();
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z ,.]{1,60}$/), { minLength: 1, maxLength: 20 }), (paragraphs) => {
        expect(siteMarkdownProblem(`# Heading\n\n${paragraphs.join('\n\n')}\n`)).toBeNull();
      }),
    );
  });

  it('finds a markdown alternate by Link header first, then by <link> in the head, resolved against the page', () => {
    const page = 'https://site.example/docs/page';
    expect(markdownAlternateOf({ link: '</docs/page.md>; rel="alternate"; type="text/markdown"' }, null, page)).toEqual({
      url: 'https://site.example/docs/page.md',
      offeredBy: 'link_header',
    });
    expect(
      markdownAlternateOf({ link: ['</x>; rel=next', '<page.md>; rel="alternate nofollow"; type="text/markdown"'] }, null, page)?.url,
    ).toBe('https://site.example/docs/page.md');
    const html =
      '<html><head><link rel="alternate" type="application/rss+xml" href="/feed"><link rel="alternate" type="text/markdown" href="index.md"></head><body></body></html>';
    expect(markdownAlternateOf({}, html, page)).toEqual({ url: 'https://site.example/docs/index.md', offeredBy: 'link_element' });
  });

  it('offers nothing for a link in the body, a non-http URL, another media type or a malformed header', () => {
    const page = 'https://site.example/';
    expect(
      markdownAlternateOf({}, '<html><head></head><body><link rel="alternate" type="text/markdown" href="/a.md"></body></html>', page),
    ).toBeNull();
    expect(markdownAlternateOf({ link: '<javascript:alert(1)>; rel=alternate; type="text/markdown"' }, null, page)).toBeNull();
    expect(markdownAlternateOf({ link: '</a.json>; rel=alternate; type="application/json"' }, null, page)).toBeNull();
    expect(markdownAlternateOf({ link: '<<<;;;' }, null, page)).toBeNull();
  });
});
