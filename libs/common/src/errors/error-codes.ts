/** Error codes of docs/contracts.md, with the HTTP status and the OpenAI-style `type` each one carries. */
export const ERROR_CODES = {
  InvalidParameter: { status: 400, type: 'invalid_request_error' },
  InvalidImage: { status: 400, type: 'invalid_request_error' },
  ModelNotFound: { status: 400, type: 'invalid_request_error' },
  UnsupportedParameter: { status: 400, type: 'invalid_request_error' },
  IdempotencyKeyReused: { status: 400, type: 'invalid_request_error' },
  /** The upstream's content inspection refused the input, or what the model made of it. */
  ContentRejected: { status: 400, type: 'invalid_request_error' },
  /** A console password on the common-passwords list, or equal to the account's email. */
  WeakPassword: { status: 400, type: 'invalid_request_error' },
  InvalidApiKey: { status: 401, type: 'authentication_error' },
  MissingAuthorization: { status: 401, type: 'authentication_error' },
  InvalidSignature: { status: 401, type: 'authentication_error' },
  ExpiredTimestamp: { status: 401, type: 'authentication_error' },
  InvalidCredentials: { status: 401, type: 'authentication_error' },
  IpNotAllowed: { status: 403, type: 'permission_error' },
  ScopeDenied: { status: 403, type: 'permission_error' },
  CsrfRejected: { status: 403, type: 'permission_error' },
  SignupClosed: { status: 403, type: 'permission_error' },
  InvalidInvitation: { status: 403, type: 'permission_error' },
  AccountDisabled: { status: 403, type: 'permission_error' },
  OperatorOnly: { status: 403, type: 'permission_error' },
  CeilingExceeded: { status: 403, type: 'permission_error' },
  /** A file URL whose signature does not match: tampered with or made up. */
  InvalidUrlSignature: { status: 403, type: 'permission_error' },
  NotFound: { status: 404, type: 'invalid_request_error' },
  /** The headers, or the body after them, did not arrive within their deadline. */
  RequestTimeout: { status: 408, type: 'invalid_request_error' },
  AlreadyExists: { status: 409, type: 'invalid_request_error' },
  /** Demoting or disabling the last operator who can sign in. */
  LastOperator: { status: 409, type: 'invalid_request_error' },
  /** A change to a deleted (revoked) application, which stays only as a record. */
  ApplicationRevoked: { status: 409, type: 'invalid_request_error' },
  /** A genuine file URL past its lifetime (IMAGE_URL_TTL). */
  UrlExpired: { status: 410, type: 'invalid_request_error' },
  PayloadTooLarge: { status: 413, type: 'invalid_request_error' },
  UriTooLong: { status: 414, type: 'invalid_request_error' },
  RateLimited: { status: 429, type: 'rate_limit_error' },
  DailyLimitExceeded: { status: 429, type: 'rate_limit_error' },
  QuotaExceeded: { status: 429, type: 'rate_limit_error' },
  BudgetExceeded: { status: 429, type: 'rate_limit_error' },
  HeadersTooLarge: { status: 431, type: 'invalid_request_error' },
  /** Ends a held request whose caller disconnected: nobody reads it, and it is no server error (5xx). */
  ClientClosedRequest: { status: 499, type: 'invalid_request_error' },
  InternalError: { status: 500, type: 'api_error' },
  UpstreamError: { status: 500, type: 'api_error' },
  NotReady: { status: 503, type: 'api_error' },
  Timeout: { status: 504, type: 'timeout_error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
