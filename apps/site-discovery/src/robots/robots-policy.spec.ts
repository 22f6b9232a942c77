import { MAX_CRAWL_DELAY_SECONDS, ROBOTS_PARSE_BYTES, RobotsPolicy } from './robots-policy';

const ROBOTS = 'https://example.com/robots.txt';
const allows = (text: string, path: string) => RobotsPolicy.parse(ROBOTS, text).allows(`https://example.com${path}`);

/** RFC 9309 §2.2 cases, asked as our agent (`scrapeapi`), which also takes the `*` group. */
describe('RobotsPolicy', () => {
  it.each([
    ['the longest match wins', 'User-agent: *\nDisallow: /a\nAllow: /a/b', '/a/b/c', true],
    ['the longest match wins (disallow)', 'User-agent: *\nAllow: /a\nDisallow: /a/b', '/a/b/c', false],
    ['Allow wins a tie', 'User-agent: *\nDisallow: /a\nAllow: /a', '/a', true],
    ['* matches any run', 'User-agent: *\nDisallow: /*?sort=', '/s1/?sort=date', false],
    ['$ anchors the end', 'User-agent: *\nDisallow: /*.pdf$', '/x.pdf?download=1', true],
    ['$ anchors the end (match)', 'User-agent: *\nDisallow: /*.pdf$', '/x.pdf', false],
    ['an empty Disallow allows everything', 'User-agent: *\nDisallow:', '/anything', true],
    ['product tokens are case-insensitive', 'User-agent: ScrapeAPI\nDisallow: /', '/x', false],
    ['our group replaces *', 'User-agent: *\nDisallow: /\n\nUser-agent: scrapeapi\nAllow: /', '/x', true],
    ['another agent’s group does not apply', 'User-agent: otherbot\nDisallow: /', '/x', true],
    ['%7E and ~ are one path (rule escaped)', 'User-agent: *\nDisallow: /%7Ejoe/', '/~joe/index.html', false],
    ['%7E and ~ are one path (URL escaped)', 'User-agent: *\nDisallow: /~joe/', '/%7ejoe/index.html', false],
    ['non-ASCII rules match their UTF-8 escapes', 'User-agent: *\nDisallow: /föö', '/f%C3%B6%C3%B6/x', false],
    ['CR line ends', 'User-agent: *\rDisallow: /a\r', '/a', false],
    ['a BOM is ignored', '\uFEFFUser-agent: *\nDisallow: /a', '/a', false],
    ['comments are ignored', 'User-agent: * # all\nDisallow: /a # not a\n', '/a', false],
    ['/robots.txt is always allowed', 'User-agent: *\nDisallow: /', '/robots.txt', true],
  ])('%s', (_, text, path, allowed) => {
    expect(allows(text, path)).toBe(allowed);
  });

  it('reads Crawl-delay (capped) and Sitemap lines', () => {
    const policy = RobotsPolicy.parse(ROBOTS, 'User-agent: *\nCrawl-delay: 2\nSitemap: https://example.com/s.xml\n');
    expect(policy.crawlDelaySeconds()).toBe(2);
    expect(policy.sitemaps()).toEqual(['https://example.com/s.xml']);
    expect(RobotsPolicy.parse(ROBOTS, 'User-agent: *\nCrawl-delay: 86400').crawlDelaySeconds()).toBe(MAX_CRAWL_DELAY_SECONDS);
    expect(RobotsPolicy.parse(ROBOTS, 'User-agent: *\nCrawl-delay: soon').crawlDelaySeconds()).toBeNull();
  });

  it('reads the first 500 KiB and ignores the rest (RFC 9309 §2.5)', () => {
    const filler = `# ${'x'.repeat(100)}\n`.repeat(Math.ceil(ROBOTS_PARSE_BYTES / 103));
    const policy = RobotsPolicy.parse(ROBOTS, `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    expect(policy.allows('https://example.com/early')).toBe(false);
    expect(policy.allows('https://example.com/late')).toBe(true);
  });

  it('treats a missing file as no rules and an unavailable one as everything disallowed (§2.3.1.3–4)', () => {
    expect(RobotsPolicy.allowAll('none').allows('https://example.com/x')).toBe(true);
    const unavailable = RobotsPolicy.disallowAll();
    expect(unavailable.allows('https://example.com/x')).toBe(false);
    expect(unavailable.allows('https://example.com/robots.txt')).toBe(true);
  });

  it('survives malformed files: garbage lines, lone surrogates, lines without a colon', () => {
    const policy = RobotsPolicy.parse(ROBOTS, 'garbage\n\u0000\nUser-agent *\nUser-agent: *\nDisallow: /\uD800x\nDisallow: /b\n');
    expect(policy.allows('https://example.com/b')).toBe(false);
    expect(policy.allows('https://example.com/a')).toBe(true);
  });
});
