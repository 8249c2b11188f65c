import { isTlsTrustError } from './tls-errors';

describe('isTlsTrustError', () => {
  it.each([
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
  ])('knows %s as an untrusted certificate', (code) => expect(isTlsTrustError(code)).toBe(true));

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ERR_TLS_CERT_ALTNAME_INVALID_X', ''])('does not count %j', (code) =>
    expect(isTlsTrustError(code)).toBe(false),
  );
});
