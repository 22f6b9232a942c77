import type { CDPSession, Page } from 'rebrowser-puppeteer-core';
import { firstLine } from './browser-failures';

/**
 * The largest screenshot side, in device pixels: a taller (or wider) page is captured from its top
 * left corner down to this size, and the response says so. It bounds the image (at most 16,384²
 * pixels) whatever the page's length; Chromium itself refuses some captures ("Page is too large"),
 * which the capture below turns into a note.
 */
export const SCREENSHOT_MAX_DEVICE_PX = 16_384;

export interface ScreenshotOutcome {
  /** Base64 PNG, or null when the capture failed. */
  screenshot: string | null;
  /** What the client should know about it (clipped, or why there is none). */
  note: string | null;
}

/**
 * A full-page screenshot that never costs the rest of the result: the page's size is read from the
 * compositor (Page.getLayoutMetrics, no page script), clipped to SCREENSHOT_MAX_DEVICE_PX per side
 * at the page's device scale factor, and a failed capture comes back as a note, not an error. A
 * renderer crash is not a failed capture: `guard` (the caller's crash race) still ends the request.
 */
export async function capturePageScreenshot(
  page: Page,
  cdp: CDPSession,
  deviceScaleFactor: number,
  guard: <T>(work: Promise<T>) => Promise<T>,
  isCrash: (error: unknown) => boolean,
): Promise<ScreenshotOutcome> {
  try {
    const { cssContentSize } = await guard(cdp.send('Page.getLayoutMetrics'));
    const maxCss = Math.floor(SCREENSHOT_MAX_DEVICE_PX / Math.max(deviceScaleFactor, 1));
    const width = Math.max(1, Math.ceil(cssContentSize.width));
    const height = Math.max(1, Math.ceil(cssContentSize.height));
    const clip = { x: 0, y: 0, width: Math.min(width, maxCss), height: Math.min(height, maxCss) };
    const screenshot = (await guard(page.screenshot({ clip, type: 'png', encoding: 'base64', captureBeyondViewport: true }))) as string;
    const clipped = clip.width < width || clip.height < height;
    return {
      screenshot,
      note: clipped
        ? `The screenshot shows the page's first ${clip.width}×${clip.height} CSS pixels of ${width}×${height}: screenshots stop at ${SCREENSHOT_MAX_DEVICE_PX} device pixels per side.`
        : null,
    };
  } catch (error) {
    if (isCrash(error)) throw error;
    return { screenshot: null, note: `The screenshot could not be taken (${firstLine(error)}); the rest of the result is complete.` };
  }
}
