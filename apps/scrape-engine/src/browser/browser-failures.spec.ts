import fc from 'fast-check';
import { FETCH_ERROR_TYPES } from '@lib/contracts';
import { netErrorFailure } from './browser-failures';

describe('netErrorFailure', () => {
  it.each([
    ['net::ERR_TOO_MANY_REDIRECTS at http://127.0.0.1:1/loop', 'too_many_redirects', false],
    ['net::ERR_NAME_NOT_RESOLVED at https://nowhere.invalid/', 'dns_error', false],
    ['net::ERR_CERT_AUTHORITY_INVALID at https://self-signed.example/', 'tls_error', false],
    ['net::ERR_SSL_PROTOCOL_ERROR at https://example.com/', 'tls_error', false],
    ['net::ERR_CONNECTION_TIMED_OUT at https://example.com/', 'timeout', true],
    ['net::ERR_CONTENT_DECODING_FAILED at https://example.com/', 'fetch_error', false],
    ['net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/', 'connection_error', true],
    ['net::ERR_CONNECTION_RESET at http://127.0.0.1:1/', 'connection_error', true],
  ])('%s → %s', (message, errorType, retryable) => {
    expect(netErrorFailure(message)).toMatchObject({ errorType, retryable });
  });

  it('maps every Chromium network error to a type simple mode also reports, and nothing else to any', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Z_]{1,40}$/), fc.string(), (code, rest) => {
        const failure = netErrorFailure(`net::ERR_${code} at ${rest}`);
        expect(failure).not.toBeNull();
        // The types simple mode reports for a failed fetch: one cause reads the same in both modes.
        expect(FETCH_ERROR_TYPES).toContain(failure!.errorType);
      }),
    );
    fc.assert(fc.property(fc.string(), (message) => expect(netErrorFailure(message.replace(/net::ERR_/g, ''))).toBeNull()));
  });
});
