/** Node/OpenSSL error codes meaning the server's certificate was not trusted, as opposed to a network failure. */
const TLS_TRUST_ERRORS =
  /^(CERT_|ERR_TLS_CERT_ALTNAME_INVALID$|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$)/;

export function isTlsTrustError(code: string): boolean {
  return TLS_TRUST_ERRORS.test(code);
}
