import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '@gateway/common';
import { Injectable } from '@nestjs/common';

export type UrlCheck = 'valid' | 'expired' | 'invalid';

/**
 * Signed, expiring file URLs (docs/contracts.md): `/v1/files/{id}?exp=<unix seconds>&sig=<base64url HMAC-SHA256(id.exp)>`.
 * Each key is derived from a master key for this one purpose, so it never doubles as the Secret Key cipher key. URLs
 * are signed with the newest master key's and verified with every listed one's, so URLs issued before a rotation
 * work until the old key is removed.
 */
@Injectable()
export class FileUrlSigner {
  private readonly keys: Buffer[];

  constructor(config: AppConfig) {
    this.keys = config.masterKeys.map((hex) =>
      Buffer.from(hkdfSync('sha256', Buffer.from(hex, 'hex'), Buffer.alloc(0), 'model-gateway file urls', 32)),
    );
  }

  /** The path and query of a file's URL, valid until `expiresAt`. */
  path(fileId: string, expiresAt: Date): string {
    const exp = Math.floor(expiresAt.getTime() / 1000);
    return `/v1/files/${encodeURIComponent(fileId)}?exp=${exp}&sig=${this.signature(fileId, exp)}`;
  }

  /** The signature is checked first, so a forged URL is refused whatever its expiry says. */
  check(fileId: string, exp: string | undefined, sig: string | undefined, now = Date.now()): UrlCheck {
    if (!exp || !sig || !/^\d{1,12}$/.test(exp)) return 'invalid';
    const given = Buffer.from(sig);
    const signedByListedKey = this.keys.some((key) => {
      const expected = Buffer.from(this.signature(fileId, Number(exp), key));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!signedByListedKey) return 'invalid';
    return Number(exp) * 1000 <= now ? 'expired' : 'valid';
  }

  private signature(fileId: string, exp: number, key = this.keys[0]): string {
    return createHmac('sha256', key).update(`${fileId}.${exp}`).digest('base64url');
  }
}
