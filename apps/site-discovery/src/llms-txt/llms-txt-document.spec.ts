import fc from 'fast-check';
import { LLMS_TXT_LINK_LIMIT, readLlmsTxt } from './llms-txt-document';

const FILE = `# Example Docs

> The docs of Example, for language models.

Some free text about the project.

## Guides

- [Getting started](/docs/start.md): install and first request
- [API reference](https://example.com/docs/api.md)
* [Elsewhere](https://other.example/page "a title"): another site
- not a link
- [Bad](javascript:alert(1))

## Optional

- [Changelog](changelog.md)
`;

describe(readLlmsTxt.name, () => {
  it('reads the title, the summary and the links by section, absolute against the file', () => {
    expect(readLlmsTxt(FILE, 'https://example.com/llms.txt')).toEqual({
      title: 'Example Docs',
      summary: 'The docs of Example, for language models.',
      sections: [
        {
          name: 'Guides',
          optional: false,
          links: [
            { title: 'Getting started', url: 'https://example.com/docs/start.md', description: 'install and first request' },
            { title: 'API reference', url: 'https://example.com/docs/api.md', description: null },
            { title: 'Elsewhere', url: 'https://other.example/page', description: 'another site' },
          ],
        },
        { name: 'Optional', optional: true, links: [{ title: 'Changelog', url: 'https://example.com/changelog.md', description: null }] },
      ],
      total: 4,
    });
  });

  it('takes a heading\'s closing #s off only after a space, as CommonMark does ("C#" stays "C#")', () => {
    const read = readLlmsTxt('# C#\n\n## F# ##\n\n- [x](/x)\n', 'https://example.com/llms.txt')!;
    expect(read.title).toBe('C#');
    expect(read.sections[0]!.name).toBe('F#');
    expect(readLlmsTxt('# Docs ###\n', 'https://example.com/llms.txt')!.title).toBe('Docs');
  });

  it('is not an llms.txt without an H1 first, or when it is an HTML page', () => {
    expect(readLlmsTxt('Some text\n# Late title\n', 'https://example.com/llms.txt')).toBeNull();
    expect(readLlmsTxt('<!DOCTYPE html><html><body># Title</body></html>', 'https://example.com/llms.txt')).toBeNull();
    expect(readLlmsTxt('', 'https://example.com/llms.txt')).toBeNull();
  });

  it(`keeps at most ${LLMS_TXT_LINK_LIMIT} links and counts them all`, () => {
    const links = Array.from({ length: LLMS_TXT_LINK_LIMIT + 5 }, (_, i) => `- [Page ${i}](/p/${i})`).join('\n');
    const read = readLlmsTxt(`# Big\n\n## All\n\n${links}\n`, 'https://example.com/llms.txt')!;
    expect(read.sections[0]!.links).toHaveLength(LLMS_TXT_LINK_LIMIT);
    expect(read.total).toBe(LLMS_TXT_LINK_LIMIT + 5);
  });

  it('never throws and only lists http(s) URLs, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.array(fc.string({ maxLength: 40 }), { maxLength: 10 }), (head, hrefs) => {
        const text = `# T\n${head}\n## S\n${hrefs.map((href) => `- [x](${href})`).join('\n')}\n`;
        const read = readLlmsTxt(text, 'https://example.com/llms.txt');
        for (const section of read?.sections ?? []) for (const link of section.links) expect(link.url).toMatch(/^https?:\/\//);
      }),
    );
  });
});
