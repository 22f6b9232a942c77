import { randomInt } from 'node:crypto';

export type WindowSize = 'desktop' | 'mobile' | 'any';

export interface UserAgentBrand {
  brand: string;
  version: string;
}

/**
 * The client hints a browser states of itself where no override reaches (its service workers), read
 * from it at launch: brands, and the high-entropy values its command line leaves (a custom user
 * agent on the command line empties the full version list and the platform version).
 */
export interface BrowserClientHints {
  brands: UserAgentBrand[];
  fullVersionList: UserAgentBrand[];
  platformVersion: string;
}

/**
 * One browser identity whose parts agree with each other: the user agent, its client hints and
 * navigator.platform name the same OS and device; the viewport, screen and touch fit that device;
 * the brands and the GPU are the browser's and the machine's own (decision 0043); Accept-Language, navigator.languages, the Intl locale and the time zone follow the
 * request's `language`. Anti-bot scripts look for disagreements between these more than for any
 * single value. A desktop profile names the operating system the browser really runs on (decision
 * 0021): service workers, fonts and emoji show it whatever the user agent says, so claiming another
 * is a lie that cannot be kept everywhere. Cores and memory are the machine's own for the same reason.
 */
export interface FingerprintProfile {
  device: 'desktop' | 'mobile';
  userAgent: string;
  userAgentMetadata: {
    brands: UserAgentBrand[];
    fullVersionList: UserAgentBrand[];
    fullVersion: string;
    platform: string;
    platformVersion: string;
    architecture: string;
    model: string;
    mobile: boolean;
    bitness: string;
    wow64: boolean;
  };
  /** navigator.platform */
  platform: string;
  acceptLanguage: string;
  languages: string[];
  locale: string;
  timezone: string;
  viewport: { width: number; height: number; deviceScaleFactor: number; isMobile: boolean; hasTouch: boolean };
  screen: { width: number; height: number };
}

/** The screen of `window_size: desktop`; heavy's windows open at this size (BrowserLauncher). */
export const DESKTOP_SCREEN = { width: 1920, height: 1080 };

const DESKTOP_SIZES: Array<[number, number]> = [
  [DESKTOP_SCREEN.width, DESKTOP_SCREEN.height],
  [1366, 768],
  [1536, 864],
  [1440, 900],
  [1600, 900],
  [2560, 1440],
];
const MOBILE_SIZES: Array<[number, number, number]> = [
  [412, 915, 2.625],
  [393, 873, 2.75],
  [360, 800, 3],
];

/** What a desktop of each operating system says about itself. */
interface DesktopKind {
  /** The user agent's platform token, for the machine's architecture. */
  uaPlatform: (arch: HostMachine['arch']) => string;
  /** navigator.platform */
  platform: (arch: HostMachine['arch']) => string;
  clientHintsPlatform: string;
}

const DESKTOPS: Record<'linux' | 'mac' | 'windows', DesktopKind> = {
  linux: {
    uaPlatform: (arch) => `X11; Linux ${arch}`,
    platform: (arch) => `Linux ${arch}`,
    clientHintsPlatform: 'Linux',
  },
  mac: {
    // Chrome on Apple silicon says Intel too, in both places.
    uaPlatform: () => 'Macintosh; Intel Mac OS X 10_15_7',
    platform: () => 'MacIntel',
    clientHintsPlatform: 'macOS',
  },
  windows: {
    uaPlatform: () => 'Windows NT 10.0; Win64; x64',
    platform: () => 'Win32',
    clientHintsPlatform: 'Windows',
  },
};

/** The machine the browser runs on, as a desktop profile describes it. */
export interface HostMachine {
  os: keyof typeof DESKTOPS;
  /** x86_64 or aarch64, as Chromium on Linux names it in navigator.platform. */
  arch: 'x86_64' | 'aarch64';
}

/** This process's machine, read once: it does not change while the process runs. */
export const THIS_MACHINE: HostMachine = (() => {
  const osName = process.platform === 'darwin' ? 'mac' : process.platform === 'win32' ? 'windows' : 'linux';
  return { os: osName, arch: process.arch === 'arm64' ? 'aarch64' : 'x86_64' };
})();

// Region → the time zone most of its people use; a language without a region takes its usual one.
const REGION_TIMEZONES: Record<string, string> = {
  US: 'America/New_York',
  CA: 'America/Toronto',
  MX: 'America/Mexico_City',
  BR: 'America/Sao_Paulo',
  AR: 'America/Argentina/Buenos_Aires',
  GB: 'Europe/London',
  IE: 'Europe/Dublin',
  DE: 'Europe/Berlin',
  AT: 'Europe/Vienna',
  CH: 'Europe/Zurich',
  FR: 'Europe/Paris',
  BE: 'Europe/Brussels',
  NL: 'Europe/Amsterdam',
  ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon',
  IT: 'Europe/Rome',
  PL: 'Europe/Warsaw',
  CZ: 'Europe/Prague',
  SE: 'Europe/Stockholm',
  NO: 'Europe/Oslo',
  DK: 'Europe/Copenhagen',
  FI: 'Europe/Helsinki',
  GR: 'Europe/Athens',
  TR: 'Europe/Istanbul',
  RU: 'Europe/Moscow',
  UA: 'Europe/Kyiv',
  IN: 'Asia/Kolkata',
  CN: 'Asia/Shanghai',
  TW: 'Asia/Taipei',
  HK: 'Asia/Hong_Kong',
  JP: 'Asia/Tokyo',
  KR: 'Asia/Seoul',
  SG: 'Asia/Singapore',
  ID: 'Asia/Jakarta',
  TH: 'Asia/Bangkok',
  VN: 'Asia/Ho_Chi_Minh',
  IL: 'Asia/Jerusalem',
  AE: 'Asia/Dubai',
  SA: 'Asia/Riyadh',
  ZA: 'Africa/Johannesburg',
  EG: 'Africa/Cairo',
  NG: 'Africa/Lagos',
  AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
};
const LANGUAGE_REGIONS: Record<string, string> = {
  en: 'US',
  de: 'DE',
  fr: 'FR',
  es: 'ES',
  it: 'IT',
  pt: 'BR',
  nl: 'NL',
  pl: 'PL',
  cs: 'CZ',
  sv: 'SE',
  nb: 'NO',
  no: 'NO',
  da: 'DK',
  fi: 'FI',
  el: 'GR',
  tr: 'TR',
  ru: 'RU',
  uk: 'UA',
  hi: 'IN',
  zh: 'CN',
  ja: 'JP',
  ko: 'KR',
  id: 'ID',
  th: 'TH',
  vi: 'VN',
  he: 'IL',
  ar: 'SA',
};

export interface ProfileRequest {
  windowSize: WindowSize;
  /** A language tag such as en-US ('' = en-US). */
  language: string;
  /** The browser's real version ("156.0.8078.79"): the UA must not claim another one. */
  browserVersion: string;
  /** The browser's own client hints: a desktop profile states no other. */
  clientHints: BrowserClientHints;
}

/** The user agent of a desktop Chromium of this version on this machine, as a headful one states it. */
function desktopUserAgent(browserVersion: string, machine: HostMachine = THIS_MACHINE): string {
  const major = browserVersion.replace(/^[^0-9]*/, '').split('.')[0] || '120';
  return `Mozilla/5.0 (${DESKTOPS[machine.os].uaPlatform(machine.arch)}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

/** Picks a consistent identity for one request (random where the request leaves room). */
export function fingerprintProfileFor(
  request: ProfileRequest,
  pick: (n: number) => number = randomInt,
  machine: HostMachine = THIS_MACHINE,
): FingerprintProfile {
  const device = request.windowSize === 'mobile' || (request.windowSize === 'any' && pick(4) === 0) ? 'mobile' : 'desktop';
  const fullVersion = request.browserVersion.replace(/^[^0-9]*/, '') || '120.0.0.0';
  const major = fullVersion.split('.')[0];
  const { languages, locale, acceptLanguage, timezone } = languageProfile(request.language);
  const { brands, fullVersionList } = request.clientHints;
  if (device === 'mobile') {
    const [width, height, scale] = request.windowSize === 'mobile' ? MOBILE_SIZES[0] : MOBILE_SIZES[pick(MOBILE_SIZES.length)];
    return {
      device,
      userAgent: `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`,
      userAgentMetadata: {
        brands,
        fullVersionList,
        fullVersion,
        platform: 'Android',
        platformVersion: '14.0.0',
        architecture: '',
        model: 'Pixel 7',
        mobile: true,
        bitness: '',
        wow64: false,
      },
      platform: 'Linux armv81',
      acceptLanguage,
      languages,
      locale,
      timezone,
      viewport: { width, height, deviceScaleFactor: scale, isMobile: true, hasTouch: true },
      screen: { width, height },
    };
  }
  const [width, height] = request.windowSize === 'desktop' ? DESKTOP_SIZES[0] : DESKTOP_SIZES[pick(DESKTOP_SIZES.length)];
  const desktop = DESKTOPS[machine.os];
  const arm = machine.arch === 'aarch64';
  return {
    device,
    userAgent: desktopUserAgent(fullVersion, machine),
    userAgentMetadata: {
      brands,
      fullVersionList,
      fullVersion,
      platform: desktop.clientHintsPlatform,
      platformVersion: request.clientHints.platformVersion,
      architecture: arm ? 'arm' : 'x86',
      model: '',
      mobile: false,
      bitness: '64',
      wow64: false,
    },
    platform: desktop.platform(machine.arch),
    acceptLanguage,
    languages,
    locale,
    timezone,
    viewport: { width, height, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
    screen: { width, height },
  };
}

function languageProfile(tag: string): { languages: string[]; locale: string; acceptLanguage: string; timezone: string } {
  const [base, ...rest] = (tag || 'en-US').split('-');
  const language = base.toLowerCase();
  const explicitRegion = rest.find((part) => /^[A-Za-z]{2}$/.test(part))?.toUpperCase();
  const region = explicitRegion ?? LANGUAGE_REGIONS[language] ?? 'US';
  const locale = explicitRegion ? `${language}-${region}` : tag ? language : 'en-US';
  const languages = locale.includes('-') ? [locale, language] : [locale];
  // Chromium adds the q-values to the header itself; navigator.languages takes this list as it is.
  const acceptLanguage = languages.join(',');
  return { languages, locale, acceptLanguage, timezone: REGION_TIMEZONES[region] ?? 'America/New_York' };
}
