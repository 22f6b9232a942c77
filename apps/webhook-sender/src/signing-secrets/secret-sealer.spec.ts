import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { embeddedSealingKey, SecretSealer } from './secret-sealer';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('SecretSealer (webhook secrets at rest)', () => {
  it('opens what it sealed, for any secret and client, and never stores the secret in clear', () => {
    const sealer = new SecretSealer([k1]);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.string({ minLength: 1, maxLength: 64 }), (secret, client) => {
        const stored = sealer.seal(secret, client);
        expect(stored.startsWith('sealed.v1:k1:')).toBe(true);
        if (secret.length >= 4) expect(stored).not.toContain(secret);
        expect(sealer.open(stored, client)).toEqual({ plain: secret, stale: false });
      }),
      { numRuns: 200 },
    );
    // Two seals of one secret differ (fresh IV each time).
    expect(sealer.seal('whsec_x', 'c')).not.toBe(sealer.seal('whsec_x', 'c'));
  });

  it('refuses a sealed value moved to another client, or tampered with', () => {
    const sealer = new SecretSealer([k1]);
    const stored = sealer.seal('whsec_abc', 'alice');
    expect(() => sealer.open(stored, 'mallory')).toThrow();
    const parts = stored.split(':');
    parts[4] = Buffer.from(Buffer.from(parts[4], 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64url');
    expect(() => sealer.open(parts.join(':'), 'alice')).toThrow();
  });

  it('rotates: a new key first seals, the old one still opens and marks the value stale; a dropped key is named', () => {
    const old = new SecretSealer([k1]).seal('whsec_old', 'c');
    const rotated = new SecretSealer([k2, k1]);
    expect(rotated.open(old, 'c')).toEqual({ plain: 'whsec_old', stale: true });
    expect(rotated.seal('whsec_new', 'c')).toMatch(/^sealed\.v1:k2:/);
    expect(() => new SecretSealer([k2]).open(old, 'c')).toThrow(/key "k1"/);
    // A secret written before encryption at rest opens as itself and is marked for sealing.
    expect(rotated.open('whsec_legacy', 'c')).toEqual({ plain: 'whsec_legacy', stale: true });
  });

  it('makes the embedded key once, owner-readable only, and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sealer-'));
    try {
      const first = embeddedSealingKey(dir);
      expect(first.key).toHaveLength(32);
      expect(fs.statSync(path.join(dir, 'keys', 'webhook-secrets.key')).mode & 0o777).toBe(0o600);
      expect(embeddedSealingKey(dir).key.equals(first.key)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
