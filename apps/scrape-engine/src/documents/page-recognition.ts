import { PNG } from 'pngjs';
import type Tesseract from 'tesseract.js';

/** A page's picture as pdf.js decodes it: 1-bit grey packed by rows, RGB or RGBA bytes. */
export interface PageImage {
  width: number;
  height: number;
  /** pdf.js ImageKind: 1 GRAYSCALE_1BPP, 2 RGB_24BPP, 3 RGBA_32BPP. */
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/** A line of a page's picture, in its pixels: its text, its left and right ends, its baseline (from the top) and its row's height (the font's size, near enough). */
export interface RecognisedLine {
  text: string;
  left: number;
  right: number;
  baseline: number;
  height: number;
}

/** What is too small to be a page of text (a logo, a rule): not worth recognising. */
const SMALLEST_PAGE_SIDE = 200;

/**
 * A scanned page's text, recognised by tesseract.js (decision 0039) with English data from the
 * registry (`@tesseract.js-data/eng`, LSTM integer model): nothing is downloaded at run time and
 * nothing is cached on disk. One recogniser per document thread, started on the first scan it
 * meets (≈ 1 s) and kept for the next; tesseract runs on a thread of its own inside the document
 * thread, so ending the document thread ends it too.
 */
export class PageRecognition {
  private worker: Promise<Tesseract.Worker> | null = null;

  async recognise(image: PageImage): Promise<RecognisedLine[]> {
    if (Math.min(image.width, image.height) < SMALLEST_PAGE_SIDE) return [];
    const worker = await (this.worker ??= startRecogniser());
    const { data } = await worker.recognize(pngOf(image), {}, { text: false, blocks: true });
    return linesOfRecognised(data);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await (await worker).terminate();
  }
}

/** A tesseract.js worker on the installed English data (the bench starts one too, for tesseract's own text). */
export async function startRecogniser(): Promise<Tesseract.Worker> {
  // Required here, not at the top: a thread that never meets a scan never loads tesseract's 7 MB of WebAssembly.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tesseract = require('tesseract.js') as typeof Tesseract;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const english = require('@tesseract.js-data/eng') as { langPath: string };
  return tesseract.createWorker('eng', tesseract.OEM.LSTM_ONLY, {
    langPath: english.langPath.replace(/4\.0\.0$/, '4.0.0_best_int'),
    gzip: true,
    cacheMethod: 'none',
    logger: () => undefined,
    errorHandler: () => undefined,
  });
}

/** The picture as an 8-bit grey PNG (what tesseract reads first anyway): a third of RGB's bytes to pass. */
export function pngOf(image: PageImage): Buffer {
  const { width, height, kind, data } = image;
  const grey = Buffer.alloc(width * height);
  if (kind === 1) {
    const rowBytes = (width + 7) >> 3;
    for (let y = 0; y < height; y += 1)
      for (let x = 0; x < width; x += 1) grey[y * width + x] = (data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
  } else {
    const step = kind === 3 ? 4 : 3;
    for (let i = 0, p = 0; i < grey.length; i += 1, p += step) grey[i] = (data[p] * 299 + data[p + 1] * 587 + data[p + 2] * 114) / 1000;
  }
  const png = new PNG({ width, height, colorType: 0, inputColorType: 0, inputHasAlpha: false });
  png.data = grey;
  return PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false });
}

/**
 * Recognised lines in the picture's pixels (origin top-left): tesseract's lines in its reading order
 * (a column's blocks before the next column's).
 */
export function linesOfRecognised(data: Pick<Tesseract.Page, 'blocks'>): RecognisedLine[] {
  return (data.blocks ?? []).flatMap((block) =>
    block.paragraphs.flatMap((paragraph) =>
      paragraph.lines.flatMap((line) => {
        // Every word tesseract read, whatever its confidence: it gives 0 to good words at times (a code line's first words).
        const words = line.words.filter((word) => word.text.trim() !== '');
        if (words.length === 0) return [];
        return [
          {
            text: words.map((word) => word.text).join(' '),
            left: words[0].bbox.x0,
            right: words[words.length - 1].bbox.x1,
            baseline: line.baseline.y0,
            height: line.rowAttributes?.rowHeight || line.bbox.y1 - line.bbox.y0,
          },
        ];
      }),
    ),
  );
}
