import { createCipheriv, randomBytes } from 'node:crypto';
import { masterKeyId, SealedValueError, SecretBox } from './secret-box';

const OLD = '0f'.repeat(32);
const NEW = 'a1'.repeat(32);

/** A value as sealed before key ids: iv.tag.ciphertext, no id. */
function sealWithoutKeyId(masterKeyHex: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(masterKeyHex, 'hex'), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

describe('SecretBox', () => {
  const box = new SecretBox([OLD]);

  it('opens what it sealed, with a fresh IV each time', () => {
    const a = box.seal('ss-secret');
    expect(box.open(a)).toBe('ss-secret');
    expect(box.seal('ss-secret')).not.toBe(a);
  });

  it('refuses a tampered ciphertext', () => {
    const [id, iv, tag, body] = box.seal('ss-secret').split('.');
    const tampered = Buffer.from(body, 'base64url');
    tampered[0] ^= 1;
    expect(() => box.open([id, iv, tag, tampered.toString('base64url')].join('.'))).toThrow(SealedValueError);
  });

  it('names the sealing key by an id derived from it, which does not contain the key', () => {
    const id = masterKeyId(NEW);
    expect(id).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(id).not.toBe(masterKeyId(OLD));
    expect(NEW).not.toContain(id);
    const sealed = new SecretBox([NEW, OLD]).seal('ss-secret');
    expect(sealed.split('.')[0]).toBe(id);
    expect(sealed).not.toContain(NEW);
  });

  it('seals with the first key and opens what any listed key sealed', () => {
    const rotated = new SecretBox([NEW, OLD]);
    const old = box.seal('ss-old');
    expect(rotated.open(old)).toBe('ss-old');
    expect(rotated.isCurrent(old)).toBe(false);
    const current = rotated.seal('ss-new');
    expect(rotated.isCurrent(current)).toBe(true);
    expect(new SecretBox([NEW]).open(current)).toBe('ss-new');
  });

  it('refuses a value sealed with a key no longer listed, naming its key id', () => {
    const old = box.seal('ss-old');
    expect(() => new SecretBox([NEW]).open(old)).toThrow(
      new SealedValueError(`sealed with key ${masterKeyId(OLD)}, which MASTER_KEYS does not list`),
    );
  });

  it('opens a value sealed before key ids with the listed key that sealed it, and never counts it current', () => {
    const legacy = sealWithoutKeyId(OLD, 'ss-legacy');
    expect(new SecretBox([NEW, OLD]).open(legacy)).toBe('ss-legacy');
    expect(new SecretBox([OLD]).isCurrent(legacy)).toBe(false);
    expect(() => new SecretBox([NEW]).open(legacy)).toThrow(new SealedValueError('no key in MASTER_KEYS opens it'));
  });

  it('refuses what is not a sealed value', () => {
    expect(() => box.open('plain')).toThrow(new SealedValueError('not a sealed value'));
  });
});
