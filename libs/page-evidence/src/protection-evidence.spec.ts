import fs from 'node:fs';
import path from 'node:path';
import {
  ARTICLE,
  CAPTCHA_WIDGETS,
  CLOUDFLARE_CHALLENGE_PAGE,
  CLOUDFLARE_HEADERS,
  CLOUDFLARE_TURNSTILE_PAGE,
  cloudflareBlockPage,
  PASSWORD_FORM,
  VENDOR_PAGES,
} from '../../../test/support/protected-pages';
import { assessProtection } from './protection-evidence';

const page = (
  body: string,
  extra: { status?: number; headers?: Record<string, string | string[]>; location?: string; finalUrl?: string } = {},
) =>
  assessProtection({
    statusCode: extra.status ?? 200,
    headers: extra.headers ?? {},
    body,
    location: extra.location ?? null,
    finalUrl: extra.finalUrl ?? null,
  });

/**
 * Fixtures written from the vendors' documented markers: for each vendor, presence on a full page
 * (served by it, its sensor script loaded) is not a challenge; its challenge or refusal page is.
 */
describe('assessProtection', () => {
  it('sees no protection on a plain page', () => {
    expect(page(`<html><head><title>Notes</title></head><body>${ARTICLE}</body></html>`)).toMatchObject({
      vendorsPresent: [],
      vendorsChallenging: [],
      cloudflareLevel: 'none',
      captchaDetected: false,
      captchaProviders: [],
      loginWall: { detected: false, evidence: [] },
    });
  });

  describe('Cloudflare levels', () => {
    const cfHeaders = CLOUDFLARE_HEADERS;
    it('present: served by Cloudflare, content delivered', () => {
      expect(page(`<html><body>${ARTICLE}</body></html>`, { headers: cfHeaders })).toMatchObject({
        cloudflareLevel: 'present',
        vendorsPresent: ['cloudflare'],
        vendorsChallenging: [],
      });
    });
    it('challenge: the managed challenge ("Just a moment...", cf-mitigated: challenge)', () => {
      const evidence = page(CLOUDFLARE_CHALLENGE_PAGE, { status: 403, headers: { ...cfHeaders, 'cf-mitigated': 'challenge' } });
      expect(evidence).toMatchObject({ cloudflareLevel: 'challenge', vendorsChallenging: ['cloudflare'], captchaDetected: false });
    });
    it('interactive: a Turnstile widget to solve', () => {
      expect(page(CLOUDFLARE_TURNSTILE_PAGE, { status: 403, headers: cfHeaders })).toMatchObject({
        cloudflareLevel: 'interactive',
        captchaDetected: true,
        captchaProviders: ['turnstile'],
      });
    });
    it.each(['1020', '1015', '1010', '1006'])('block: error %s', (code) => {
      expect(page(cloudflareBlockPage(code), { status: code === '1015' ? 429 : 403, headers: cfHeaders })).toMatchObject({
        cloudflareLevel: 'block',
        vendorsChallenging: ['cloudflare'],
      });
    });
  });

  describe('vendors: presence is not a challenge', () => {
    const cases = VENDOR_PAGES;
    it.each(cases)('$vendor', ({ vendor, present, challenge }) => {
      const onFullPage = page(`<html><body>${ARTICLE}${present.body ?? ''}</body></html>`, { headers: present.headers });
      expect(onFullPage.vendorsPresent).toContain(vendor);
      expect(onFullPage.vendorsChallenging).toEqual([]);
      expect(onFullPage.captchaDetected).toBe(false);
      const challenged = page(challenge.body, { status: challenge.status, headers: challenge.headers });
      expect(challenged.vendorsChallenging).toContain(vendor);
    });
  });

  describe('CAPTCHAs', () => {
    it.each(CAPTCHA_WIDGETS)('%s in front of the content is a gate; in a comment form under an article it is not', (provider, widget) => {
      const gate = page(`<html><head><title>Security check</title></head><body><form>${widget}</form></body></html>`);
      expect(gate).toMatchObject({ captchaDetected: true, captchaProviders: [provider] });
      const underArticle = page(`<html><body>${ARTICLE}<form id="comments">${widget}</form></body></html>`);
      expect(underArticle).toMatchObject({ captchaDetected: false, captchaProviders: [provider] });
    });
  });

  describe('login walls', () => {
    it('401 with WWW-Authenticate', () => {
      expect(page('Unauthorized', { status: 401, headers: { 'www-authenticate': 'Basic realm="intranet"' } }).loginWall).toEqual({
        detected: true,
        evidence: ['status:401 www-authenticate:basic'],
      });
    });
    it.each([
      '/login?next=%2Freport',
      '/users/sign_in',
      'https://sso.example.com/auth/realms/x/protocol/openid-connect/auth?client_id=web',
      '/account/login',
    ])('a redirect to %s', (location) => {
      expect(page('', { status: 302, location }).loginWall.detected).toBe(true);
    });
    it('a thin page with a password form; a full article with a login box in its header is not walled', () => {
      const form = PASSWORD_FORM;
      expect(page(`<html><body><h1>Sign in</h1>${form}</body></html>`).loginWall).toEqual({ detected: true, evidence: ['password-form'] });
      expect(page(`<html><body><header>${form}</header>${ARTICLE}</body></html>`).loginWall.detected).toBe(false);
    });
    it('a paywall (schema.org isAccessibleForFree false, paywall markup)', () => {
      const body = `<html><head><script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree": false}</script></head><body><h1>Story</h1><div class="paywall">Subscribe to continue reading</div></body></html>`;
      expect(page(body).loginWall.evidence[0]).toMatch(/^paywall:/);
    });
    it('does not take ordinary paths for sign-in pages', () => {
      expect(page('', { status: 301, location: '/authors/jane' }).loginWall.detected).toBe(false);
      expect(page('', { status: 301, location: '/blog/how-to-log-in-faster' }).loginWall.detected).toBe(false);
    });
  });

  it('judges the real corpus sample (the pages as served, no headers) free of challenges, CAPTCHA gates and login walls', () => {
    const corpus = path.resolve(__dirname, '../../../test/fixtures/page-corpus');
    const pages = fs.readdirSync(corpus).filter((d) => fs.existsSync(path.join(corpus, d, 'source.html')));
    expect(pages.length).toBe(32);
    const flagged = pages
      .map((name) => ({ name, evidence: page(fs.readFileSync(path.join(corpus, name, 'source.html'), 'utf8')) }))
      // Served by Cloudflare is fine (two are: its bot script is on the page); challenged is not.
      .filter(
        ({ evidence }) =>
          evidence.vendorsChallenging.length > 0 ||
          evidence.captchaDetected ||
          evidence.loginWall.detected ||
          !['none', 'present'].includes(evidence.cloudflareLevel),
      )
      .map(({ name, evidence }) => `${name}: ${evidence.ruleHits.join(' ')}`);
    expect(flagged).toEqual([]);
  });
});
