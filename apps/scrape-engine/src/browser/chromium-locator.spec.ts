import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { locateChromium } from './chromium-locator';

describe(locateChromium.name, () => {
  it('takes CHROME_PATH as given', () => {
    expect(locateChromium({ chromePath: '/opt/chrome/chrome', headlessShellPath: '/opt/shell' }, '/nonexistent')).toEqual({
      chromium: '/opt/chrome/chrome',
      headlessShell: '/opt/shell',
    });
  });

  it("prefers puppeteer's own newest download in its cache", () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'pptr-cache-'));
    for (const version of ['linux-120.0.0.0', 'linux-131.0.0.0']) {
      const dir = path.join(cache, 'chrome', version, 'chrome-linux64');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'chrome'), '#!/bin/sh\n', { mode: 0o755 });
    }
    expect(locateChromium({ chromePath: null, headlessShellPath: null }, cache).chromium).toBe(
      path.join(cache, 'chrome', 'linux-131.0.0.0', 'chrome-linux64', 'chrome'),
    );
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it('falls back to the system Chromium binary itself, not its shell wrapper', () => {
    const found = locateChromium({ chromePath: null, headlessShellPath: null }, '/nonexistent');
    if (fs.existsSync('/usr/lib/chromium/chromium')) expect(found.chromium).toBe('/usr/lib/chromium/chromium');
    if (fs.existsSync('/usr/lib/chromium/chromium-headless-shell'))
      expect(found.headlessShell).toBe('/usr/lib/chromium/chromium-headless-shell');
  });
});
