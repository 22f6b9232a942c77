import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface SealingKey {
  id: string;
  key: Buffer;
}

const FORMAT = 'sealed.v1';

/**
 * Webhook signing secrets at rest: AES-256-GCM under the operator's key ring
 * (WEBHOOK_SECRET_KEYS, newest first). A stored value is `sealed.v1:<key id>:<iv>:<tag>:<data>`
 * (base64url), and the client id is the associated data, so a sealed secret copied onto another
 * client's row does not open. Rotation: put a new key first; values sealed under an older key are
 * re-sealed when read and by webhook-sender's start-up pass, after which the old key can go.
 */
export class SecretSealer {
  constructor(private readonly keys: SealingKey[]) {
    if (keys.length === 0) throw new Error('SecretSealer needs at least one key');
  }

  get currentKeyId(): string {
    return this.keys[0].id;
  }

  seal(plain: string, clientId: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(clientId, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [FORMAT, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(':');
  }

  /** The secret, and whether its stored form should be rewritten (older key, or stored in clear). */
  open(stored: string, clientId: string): { plain: string; stale: boolean } {
    if (!stored.startsWith(`${FORMAT}:`)) return { plain: stored, stale: true }; // written before encryption at rest
    const [, keyId, iv, tag, data] = stored.split(':');
    const entry = this.keys.find((k) => k.id === keyId);
    if (!entry) throw new Error(`webhook secret of ${clientId} is sealed under key "${keyId}", which WEBHOOK_SECRET_KEYS no longer holds`);
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(clientId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    return { plain, stale: keyId !== this.currentKeyId };
  }
}

/**
 * The embedded runtime's key when WEBHOOK_SECRET_KEYS is unset: made once under DATA_DIR, readable
 * by its owner only. (With DATABASE_URL the key ring is required: replicas must share it.)
 */
export function embeddedSealingKey(dataDir: string): SealingKey {
  const file = path.join(dataDir, 'keys', 'webhook-secrets.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { id: 'local', key: Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64') };
}
