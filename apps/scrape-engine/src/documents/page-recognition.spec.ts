import fc from 'fast-check';
import { PNG } from 'pngjs';
import { linesOfRecognised, type PageImage, pngOf } from './page-recognition';
import { runsOfRecognised } from './pdf-document';

const greyOf = (image: PageImage, x: number, y: number): number => {
  if (image.kind === 1) return (image.data[y * ((image.width + 7) >> 3) + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
  const p = (y * image.width + x) * (image.kind === 3 ? 4 : 3);
  return Math.floor((image.data[p] * 299 + image.data[p + 1] * 587 + image.data[p + 2] * 114) / 1000);
};

describe('pngOf', () => {
  it('turns every kind of picture pdf.js decodes into the grey PNG of the same pixels', () => {
    const picture = fc
      .record({ width: fc.integer({ min: 1, max: 19 }), height: fc.integer({ min: 1, max: 7 }), kind: fc.constantFrom(1, 2, 3) })
      .chain(({ width, height, kind }) =>
        fc
          .uint8Array({
            minLength: kind === 1 ? ((width + 7) >> 3) * height : width * height * (kind === 3 ? 4 : 3),
            maxLength: kind === 1 ? ((width + 7) >> 3) * height : width * height * (kind === 3 ? 4 : 3),
          })
          .map((data): PageImage => ({ width, height, kind, data })),
      );
    fc.assert(
      fc.property(picture, (image) => {
        const png = PNG.sync.read(pngOf(image));
        expect([png.width, png.height]).toEqual([image.width, image.height]);
        for (let y = 0; y < image.height; y += 1)
          for (let x = 0; x < image.width; x += 1) expect(png.data[(y * image.width + x) * 4]).toBe(greyOf(image, x, y));
      }),
      { numRuns: 200 },
    );
  });
});

describe('linesOfRecognised', () => {
  const word = (text: string, x0: number, x1: number, confidence = 90) => ({ text, confidence, bbox: { x0, x1, y0: 10, y1: 30 } });
  const line = (words: ReturnType<typeof word>[], baseline = 30) => ({
    words,
    baseline: { y0: baseline, y1: baseline },
    rowAttributes: { rowHeight: 20, ascenders: 5, descenders: 5 },
    bbox: { x0: 0, x1: 100, y0: 10, y1: 30 },
  });

  it("keeps tesseract's lines in its order and their words whatever their confidence, and leaves out lines left empty", () => {
    const data = {
      blocks: [
        {
          paragraphs: [
            { lines: [line([word('Dear', 10, 50), word('%~', 55, 60, 12), word('reader,', 65, 120)]), line([word(' ', 5, 6, 5)], 60)] },
          ],
        },
        { paragraphs: [{ lines: [line([word('Yours', 10, 60)], 90)] }] },
      ],
    } as unknown as Parameters<typeof linesOfRecognised>[0];
    expect(linesOfRecognised(data)).toEqual([
      { text: 'Dear %~ reader,', left: 10, right: 120, baseline: 30, height: 20 },
      { text: 'Yours', left: 10, right: 60, baseline: 90, height: 20 },
    ]);
  });

  it('places lines on the page as a text layer would: origin bottom-left, in page units', () => {
    const runs = runsOfRecognised(
      [{ text: 'Top', left: 100, right: 300, baseline: 200, height: 40 }],
      { width: 1000, height: 2000 },
      500,
      1000,
    );
    expect(runs).toEqual([{ text: 'Top', x: 50, y: 900, width: 100, size: 20 }]);
  });
});
