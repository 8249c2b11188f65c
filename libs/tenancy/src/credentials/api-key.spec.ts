import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key';
import { SecretBox } from './secret-box';

describe('API keys', () => {
  it('are sk- plus 49 base62 characters whose checksum verifies', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^sk-[0-9A-Za-z]{49}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('reject a single changed character through the checksum', () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedApiKey(flipped)).toBe(false);
  });

  it('are never equal twice and hash to 64 hex characters', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
    expect(hashApiKey([...keys][0])).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('SecretBox', () => {
  const box = new SecretBox('0f'.repeat(32));

  it('opens what it sealed, with a fresh IV each time', () => {
    const a = box.seal('ss-secret');
    expect(box.open(a)).toBe('ss-secret');
    expect(box.seal('ss-secret')).not.toBe(a);
  });

  it('refuses a tampered ciphertext', () => {
    const [iv, tag, body] = box.seal('ss-secret').split('.');
    const tampered = Buffer.from(body, 'base64url');
    tampered[0] ^= 1;
    expect(() => box.open([iv, tag, tampered.toString('base64url')].join('.'))).toThrow();
  });
});
