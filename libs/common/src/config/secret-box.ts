import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** A master key's public name in sealed values: one-way, so it says which key without saying anything of it. */
export function masterKeyId(masterKeyHex: string): string {
  return createHmac('sha256', Buffer.from(masterKeyHex, 'hex'))
    .update('model-gateway key id')
    .digest('base64url')
    .slice(0, 8);
}

/** Why a sealed value did not open: its key is not listed, or none of the keys (or its own) opens it. */
export class SealedValueError extends Error {}

/**
 * AES-256-GCM for Secret Keys at rest under the master keys, newest first (AppConfig.masterKeys). Sealed values are
 * keyId.iv.tag.ciphertext in base64url, sealed with the first key; a value sealed before key ids
 * (iv.tag.ciphertext) opens with whichever listed key sealed it, GCM's tag telling which.
 */
export class SecretBox {
  private readonly keys: { id: string; key: Buffer }[];

  constructor(masterKeysHex: readonly string[]) {
    if (masterKeysHex.length === 0) throw new Error('SecretBox needs at least one master key');
    this.keys = masterKeysHex.map((hex) => ({ id: masterKeyId(hex), key: Buffer.from(hex, 'hex') }));
    if (new Set(this.keys.map((k) => k.id)).size !== this.keys.length)
      throw new Error('two master keys share a key id; generate a new key');
  }

  /** The id of the key that seals: the newest. */
  get currentKeyId(): string {
    return this.keys[0].id;
  }

  seal(plaintext: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [id, ...[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))].join('.');
  }

  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts.length === 4) {
      const entry = this.keys.find((k) => k.id === parts[0]);
      if (!entry) throw new SealedValueError(`sealed with key ${parts[0]}, which MASTER_KEYS does not list`);
      return decrypt(entry.key, parts.slice(1)) ?? failed(`key ${parts[0]} does not open it (tampered?)`);
    }
    if (parts.length !== 3) throw new SealedValueError('not a sealed value');
    for (const { key } of this.keys) {
      const opened = decrypt(key, parts);
      if (opened !== undefined) return opened;
    }
    return failed('no key in MASTER_KEYS opens it');
  }

  /** Whether `sealed` is already under the newest key with its id, so re-sealing it would change nothing. */
  isCurrent(sealed: string): boolean {
    const parts = sealed.split('.');
    return parts.length === 4 && parts[0] === this.currentKeyId;
  }
}

function decrypt(key: Buffer, [iv, tag, body]: string[]): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

function failed(reason: string): never {
  throw new SealedValueError(reason);
}
