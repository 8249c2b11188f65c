import { signedUrlExpiry } from './signed-url-expiry';

const expiry = (url: string) => signedUrlExpiry(new URL(url));
const at = (iso: string) => Date.parse(iso);

describe('signedUrlExpiry', () => {
  it('reads OSS’s Expires as epoch seconds', () => {
    expect(expiry('https://b.oss-cn-beijing.aliyuncs.com/a.png?OSSAccessKeyId=k&Expires=1767225600&Signature=s')).toBe(
      at('2026-01-01T00:00:00Z'),
    );
  });

  it('reads S3’s X-Amz-Date plus X-Amz-Expires seconds', () => {
    expect(
      expiry(
        'https://b.s3.amazonaws.com/a.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T120000Z&X-Amz-Expires=900&X-Amz-Signature=s',
      ),
    ).toBe(at('2026-01-01T12:15:00Z'));
  });

  it('reads OSS V4’s and GCS’s forms of the same, whatever the case of the names', () => {
    expect(expiry('https://b/a.png?x-oss-date=20260101T120000Z&x-oss-expires=60&x-oss-signature=s')).toBe(
      at('2026-01-01T12:01:00Z'),
    );
    expect(expiry('https://b/a.png?X-Goog-Date=20260101T120000Z&X-Goog-Expires=3600&X-Goog-Signature=s')).toBe(
      at('2026-01-01T13:00:00Z'),
    );
  });

  it('reads an Azure SAS end time (se) when the URL carries a signature', () => {
    expect(expiry('https://a.blob.core.windows.net/c/a.png?sv=2022-11-02&se=2026-01-01T00:30:00Z&sr=b&sig=s')).toBe(
      at('2026-01-01T00:30:00Z'),
    );
    expect(expiry('https://example.com/a.png?se=2026-01-01T00:30:00Z')).toBeUndefined();
  });

  it('finds no expiry in a plain URL', () => {
    expect(expiry('https://example.com/cat.png?size=large')).toBeUndefined();
  });

  it('takes an expiry it cannot read as already past', () => {
    expect(expiry('https://example.com/a.png?Expires=tomorrow')).toBe(0);
    expect(expiry('https://example.com/a.png?X-Amz-Date=yesterday&X-Amz-Expires=60')).toBe(0);
    expect(expiry('https://example.com/a.png?X-Amz-Date=20260101T120000Z')).toBe(0);
  });

  it('takes the earliest of several', () => {
    expect(expiry('https://example.com/a.png?Expires=1767225600&X-Amz-Date=20251231T000000Z&X-Amz-Expires=60')).toBe(
      at('2025-12-31T00:01:00Z'),
    );
  });
});
