import type { CDPSession, Page } from 'rebrowser-puppeteer-core';
import { BrowserFailure } from './browser-failures';
import { capturePageScreenshot, SCREENSHOT_MAX_DEVICE_PX } from './page-screenshot';

/** A page of the given CSS size whose capture does what `shoot` says. */
function pageOf(width: number, height: number, shoot: (options: { clip: { width: number; height: number } }) => Promise<string>) {
  const shots: Array<{ clip: { width: number; height: number } }> = [];
  const page = {
    screenshot: (options: { clip: { width: number; height: number } }) => {
      shots.push(options);
      return shoot(options);
    },
  } as unknown as Page;
  const cdp = { send: async () => ({ cssContentSize: { width, height } }) } as unknown as CDPSession;
  return { page, cdp, shots };
}

const same = <T>(work: Promise<T>) => work;
const crash = new BrowserFailure('browser_error', 'The page crashed');
const isCrash = (error: unknown) => error === crash;

describe(capturePageScreenshot.name, () => {
  it('captures a page within the limit whole, with no note', async () => {
    const { page, cdp, shots } = pageOf(1920, 3000, async () => 'png');
    expect(await capturePageScreenshot(page, cdp, 1, same, isCrash)).toEqual({ screenshot: 'png', note: null });
    expect(shots[0].clip).toMatchObject({ width: 1920, height: 3000 });
  });

  it.each([
    [1, 1920, 40_000, 1920, SCREENSHOT_MAX_DEVICE_PX],
    [2.625, 412, 30_000, 412, Math.floor(SCREENSHOT_MAX_DEVICE_PX / 2.625)],
    [1, 50_000, 800, SCREENSHOT_MAX_DEVICE_PX, 800],
  ])('clips a page past the limit at scale %s (%s×%s → %s×%s) and says so', async (scale, width, height, clippedWidth, clippedHeight) => {
    const { page, cdp, shots } = pageOf(width, height, async () => 'png');
    const outcome = await capturePageScreenshot(page, cdp, scale, same, isCrash);
    expect(shots[0].clip).toMatchObject({ width: clippedWidth, height: clippedHeight });
    expect(outcome.screenshot).toBe('png');
    expect(outcome.note).toContain(`first ${clippedWidth}×${clippedHeight} CSS pixels of ${width}×${height}`);
  });

  it('turns a failed capture into a note and no image: the rest of the result stays', async () => {
    const { page, cdp } = pageOf(1920, 3000, async () => {
      throw new Error('Protocol error (Page.captureScreenshot): Page is too large.');
    });
    const outcome = await capturePageScreenshot(page, cdp, 1, same, isCrash);
    expect(outcome.screenshot).toBeNull();
    expect(outcome.note).toMatch(/could not be taken \(.*Page is too large\.\); the rest of the result is complete/);
  });

  it('lets the page’s end through: a crash during the capture still ends the request', async () => {
    const { page, cdp } = pageOf(1920, 3000, async () => {
      throw crash;
    });
    await expect(capturePageScreenshot(page, cdp, 1, same, isCrash)).rejects.toBe(crash);
  });
});
