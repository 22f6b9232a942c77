import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook } from './webhook-signature';

describe('webhook signature (operator contract §4)', () => {
  const secret = 'whsec_test';
  const body = '{"event":"run.completed","run_id":"r"}';

  it('is sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>', () => {
    expect(signWebhook(secret, 1_795_000_000, body)).toBe(
      `sha256=${createHmac('sha256', secret).update(`1795000000.${body}`).digest('hex')}`,
    );
  });

  it('verifies the exact body and timestamp only, within 5 minutes', () => {
    const now = 1_795_000_000;
    const signature = signWebhook(secret, now, body);
    expect(verifyWebhook(secret, String(now), body, signature, now + 60)).toBe(true);
    expect(verifyWebhook(secret, String(now), `${body} `, signature, now)).toBe(false);
    expect(verifyWebhook(secret, String(now + 1), body, signature, now)).toBe(false);
    expect(verifyWebhook('whsec_other', String(now), body, signature, now)).toBe(false);
    expect(verifyWebhook(secret, String(now), body, signature, now + 301)).toBe(false);
    expect(verifyWebhook(secret, 'soon', body, signature, now)).toBe(false);
  });
});
