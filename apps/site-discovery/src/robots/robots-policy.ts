import robotsParser from 'robots-parser';
import { canonicalEscapes } from '@lib/url-normal-form';

/** RFC 9309 §2.5: a crawler must parse at least 500 KiB; the rest of a longer file is ignored. */
export const ROBOTS_PARSE_BYTES = 500 * 1024;
/** Crawl-delay above this is taken as this (a site cannot park a crawl for hours). */
export const MAX_CRAWL_DELAY_SECONDS = 30;
/** The product token our rules are looked up by; groups for `*` apply too. */
export const ROBOTS_AGENT_TOKEN = 'scrapeapi';

export type RobotsStatus = 'found' | 'none' | 'unavailable' | 'ignored';

/**
 * What robots.txt allows, by RFC 9309, through robots-parser (decision 0023) with two corrections
 * of ours: both the rules and the asked URL have their escapes put in one form first (§2.2.2:
 * `%7E` and `~` are the same path), and `/robots.txt` itself is always allowed (§2.2.2). A 4xx
 * means no rules; a 5xx or an unreachable file means everything is disallowed (§2.3.1.3–4).
 */
export class RobotsPolicy {
  private constructor(
    readonly status: RobotsStatus,
    private readonly robot: ReturnType<typeof robotsParser> | null,
    private readonly everything: boolean,
  ) {}

  static parse(robotsUrl: string, text: string): RobotsPolicy {
    const cut = text.length > ROBOTS_PARSE_BYTES ? text.slice(0, text.lastIndexOf('\n', ROBOTS_PARSE_BYTES) + 1) : text;
    const lines = cut
      .replace(/^\uFEFF/, '')
      .split(/\r\n|\r|\n/)
      .map(canonicalRuleLine);
    return new RobotsPolicy('found', robotsParser(robotsUrl, lines.join('\n')), true);
  }

  /** No robots.txt (4xx), or the client's own say-so where allowed: everything may be fetched. */
  static allowAll(status: 'none' | 'ignored'): RobotsPolicy {
    return new RobotsPolicy(status, null, true);
  }

  /** robots.txt answered 5xx or not at all: nothing may be fetched until it answers. */
  static disallowAll(): RobotsPolicy {
    return new RobotsPolicy('unavailable', null, false);
  }

  allows(url: URL | string): boolean {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    if (parsed.pathname === '/robots.txt') return true;
    if (!this.robot) return this.everything;
    if (!parsed.pathname.includes('%')) return this.robot.isAllowed(parsed.href, ROBOTS_AGENT_TOKEN) !== false;
    const asked = new URL(parsed.href);
    asked.pathname = canonicalEscapes(asked.pathname);
    return this.robot.isAllowed(asked.href, ROBOTS_AGENT_TOKEN) !== false;
  }

  /** Seconds between two fetches on this host, from our group or `*` (null: none asked). */
  crawlDelaySeconds(): number | null {
    const delay = this.robot?.getCrawlDelay(ROBOTS_AGENT_TOKEN);
    if (delay === undefined || !Number.isFinite(delay) || delay <= 0) return null;
    return Math.min(delay, MAX_CRAWL_DELAY_SECONDS);
  }

  sitemaps(): string[] {
    return this.robot?.getSitemaps() ?? [];
  }
}

/** An Allow or Disallow value with its escapes in the one form URLs are asked in. */
function canonicalRuleLine(line: string): string {
  const rule = /^(\s*(?:allow|disallow)\s*:\s*)([^#]*)(.*)$/i.exec(line);
  if (!rule) return line;
  const value = rule[2].trim();
  const encoded = value.replace(/[^\x21-\x7e]/gu, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return ''; // a lone surrogate names no path
    }
  });
  return `${rule[1]}${canonicalEscapes(encoded)}${rule[3]}`;
}
