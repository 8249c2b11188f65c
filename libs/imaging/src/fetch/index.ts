export { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy, assertValidOutboundPolicy, refusedAddressReason } from './outbound-policy';
export { parseOutboundUrl } from './outbound-url';
export { FetchFailedError, UnsafeUrlError } from './fetch-errors';
export { type HostResolver, createGuardedAgent, guardedLookup, systemResolver } from './guarded-lookup';
export { type FetchedBody, type SafeFetchOptions, SafeFetcher } from './safe-fetcher';
