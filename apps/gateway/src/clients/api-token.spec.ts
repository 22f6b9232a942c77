import { bearerTokenOf, hashApiToken, issueApiToken } from './api-token';

describe('api tokens', () => {
  it('issues distinct high-entropy tokens with a readable prefix', () => {
    const a = issueApiToken('sk');
    expect(a).toMatch(/^sk_[A-Za-z0-9_-]{32}$/);
    expect(issueApiToken('sk')).not.toBe(a);
  });

  it('hashes deterministically and never returns the token', () => {
    expect(hashApiToken('t')).toBe(hashApiToken('t'));
    expect(hashApiToken('t')).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer a b', undefined],
    [undefined, undefined],
  ])('reads %p as %p', (header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });
});
