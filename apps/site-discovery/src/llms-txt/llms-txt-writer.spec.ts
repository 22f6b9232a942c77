import fc from 'fast-check';
import { readLlmsTxt } from './llms-txt-document';
import { type IndexedPage, writeLlmsTxt } from './llms-txt-writer';

const page = (path: string, title: string | null, description: string | null = null, markdown: string | null = null): IndexedPage => ({
  url: `https://example.com${path}`,
  title,
  description,
  markdown,
});

describe(writeLlmsTxt.name, () => {
  it("names the site by the title part its pages share, sums it up by the start page's description, and lists the rest by path section", () => {
    const written = writeLlmsTxt('https://example.com/', [
      page('/', 'Example Docs', 'Everything about Example, the widget maker.'),
      page('/docs/install', 'Install — Example Docs', 'How to install Example on Linux, macOS and Windows.'),
      page(
        '/docs/',
        'Documentation | Example Docs',
        null,
        '# Documentation\n\nStart here: the guides below take you from a first request to production.',
      ),
      page(
        '/blog/launch',
        'We launched · Example Docs',
        null,
        '# We launched\n\n![hero](x.png)\n\nShort.\n\nToday we **launch** [Example](https://example.com/), a widget maker. It is fast. It is small.',
      ),
      page('/about', 'About us - Example Docs', 'About us'),
      page('/tag/news', 'News - Example Docs'),
    ]);
    expect(written.text).toBe(
      [
        '# Example Docs',
        '',
        '> Everything about Example, the widget maker.',
        '',
        '## Docs',
        '',
        '- [Documentation](https://example.com/docs/): Start here: the guides below take you from a first request to production.',
        '- [Install](https://example.com/docs/install): How to install Example on Linux, macOS and Windows.',
        '',
        '## Blog',
        '',
        '- [We launched](https://example.com/blog/launch): Today we launch Example, a widget maker. It is fast. It is small.',
        '',
        '## Pages',
        '',
        '- [About us](https://example.com/about)',
        '',
        '## Optional',
        '',
        '- [News](https://example.com/tag/news)',
        '',
      ].join('\n'),
    );
  });

  it('falls back to the first heading, then the path, for a page without a title; to the host for a site without one', () => {
    const written = writeLlmsTxt('https://example.com/', [
      page('/guides/first-steps.html', null, null, 'Intro text that is long enough to count as a paragraph of the page.'),
      page('/guides/setup', null, null, '## Setting up\n\nText.'),
    ]);
    expect(written.title).toBe('example.com');
    expect(written.summary).toBeNull();
    expect(written.sections[0]!.links.map((l) => l.title)).toEqual(['First steps', 'Setting up']);
  });

  it('keeps a link whole whatever its title and URL hold (brackets, parentheses, spaces), and cuts long descriptions at a sentence', () => {
    const long = `${'A sentence of some length. '.repeat(20)}`;
    const written = writeLlmsTxt('https://example.com/', [page('/wiki/Foo_(bar)', 'Foo [bar] (disambiguation)', long)]);
    const read = readLlmsTxt(written.text, 'https://example.com/llms.txt')!;
    expect(read.sections[0]!.links[0]).toEqual({
      title: 'Foo (bar) (disambiguation)',
      url: 'https://example.com/wiki/Foo_%28bar%29',
      description: expect.stringMatching(/^A sentence of some length\.( A sentence of some length\.)*$/),
    });
    expect(read.sections[0]!.links[0]!.description!.length).toBeLessThanOrEqual(300);
  });

  it('reads back through readLlmsTxt as the links it wrote, for any titles, descriptions and paths', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'B', ' ', '[', ']', '(', ')', ':', '-', '|', '\n', 'é', '#', '>', '*', '`', '\\'),
      maxLength: 60,
    });
    const segment = fc.stringMatching(/^[a-z0-9()% _-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            path: fc.array(segment, { minLength: 1, maxLength: 3 }),
            title: fc.option(text),
            description: fc.option(text),
            markdown: fc.option(text),
          }),
          {
            maxLength: 12,
          },
        ),
        (specs) => {
          const pages = specs.map((spec) => ({
            url: new URL(`/${spec.path.join('/')}`, 'https://example.com').href,
            title: spec.title,
            description: spec.description,
            markdown: spec.markdown,
          }));
          const written = writeLlmsTxt('https://example.com/', pages);
          const read = readLlmsTxt(written.text, 'https://example.com/llms.txt');
          expect(read).not.toBeNull();
          expect(read!.title).toBe(written.title);
          expect(read!.summary).toBe(written.summary);
          expect(read!.sections.map((s) => ({ name: s.name, optional: s.optional, links: s.links }))).toEqual(
            written.sections.map((s) => ({ ...s, links: s.links.map((l) => ({ ...l, url: new URL(l.url).href })) })),
          );
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
