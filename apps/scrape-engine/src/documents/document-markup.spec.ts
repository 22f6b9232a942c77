import { writeDocument } from './document-markup';

describe('writeDocument', () => {
  it('writes no heading that has no text (an EPUB chapter without a title), in any of the three forms', () => {
    const written = writeDocument(
      [
        {
          n: 1,
          blocks: [
            { kind: 'heading', level: 1, inline: [{ text: '  ' }] },
            { kind: 'heading', level: 2, inline: [{ text: 'Results' }] },
            { kind: 'paragraph', inline: [{ text: 'Most households heat with gas.' }] },
          ],
        },
      ],
      [],
    );
    expect(written.markdown).toBe('<!-- page 1 -->\n\n## Results\n\nMost households heat with gas.\n');
    expect(written.html).not.toContain('<h1>');
    expect(written.text.trim()).toBe('Results\n\nMost households heat with gas.');
  });
});
