import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the two kinds of browser binary are; null when none was found (browser mode then reports it). */
export interface ChromiumBinaries {
  chromium: string | null;
  /** chrome-headless-shell: the old headless build, lighter and faster to start (light browsers). */
  headlessShell: string | null;
}

// Debian's /usr/bin/chromium* are shell wrappers that stay the parent of the browser: the pool
// would then signal the wrapper, not Chromium. The binaries themselves come first.
const SYSTEM_CHROMIUM = [
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/chromium-browser',
];
const SYSTEM_HEADLESS_SHELL = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell'];

/**
 * CHROME_PATH when set (it must exist), else puppeteer's own download when one is in its cache,
 * else the system's Chromium or Chrome (operator contract §2). The same for the headless shell.
 */
export function locateChromium(
  configured: { chromePath: string | null; headlessShellPath: string | null },
  cacheDir = path.join(os.homedir(), '.cache', 'puppeteer'),
): ChromiumBinaries {
  return {
    chromium: configured.chromePath ?? firstExisting([...cached(cacheDir, 'chrome', 'chrome'), ...SYSTEM_CHROMIUM]),
    headlessShell:
      configured.headlessShellPath ??
      firstExisting([...cached(cacheDir, 'chrome-headless-shell', 'chrome-headless-shell'), ...SYSTEM_HEADLESS_SHELL]),
  };
}

/** `<cache>/<product>/linux-<version>/<product>-linux64/<binary>`, newest version first. */
function cached(cacheDir: string, product: string, binary: string): string[] {
  const root = path.join(cacheDir, product);
  let versions: string[];
  try {
    versions = fs.readdirSync(root);
  } catch {
    return [];
  }
  return versions
    .sort()
    .reverse()
    .map((version) => path.join(root, version, `${product}-linux64`, binary));
}

function firstExisting(candidates: string[]): string | null {
  return candidates.find((candidate) => isExecutable(candidate)) ?? null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile() || fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
