/** What the gateway needs to know about a task endpoint of /v1. */
interface EndpointShape {
  /** What an application's scope allows and a catalog model serves. */
  capability: string;
  /** The route it answers on. */
  path: string;
  /** The queue whose workers run its tasks. */
  queue: string;
  /** The endpoint as task records, GET /v1/tasks and webhook events name it. */
  name: string;
}

/**
 * The task endpoints, the one place their capability, path and queue are spelled (docs/contracts.md). The console
 * reads it too, so it stays plain data.
 */
export const ENDPOINTS = {
  imageEdit: { capability: 'image-edit', path: '/v1/images/edits', queue: 'image-edit', name: 'images/edits' },
  embeddings: { capability: 'embeddings', path: '/v1/embeddings', queue: 'embeddings', name: 'embeddings' },
  chat: { capability: 'chat', path: '/v1/chat/completions', queue: 'chat', name: 'chat.completions' },
  // A chat task answered in the Responses shape: the same capability, queue and task service as chat.
  responses: { capability: 'chat', path: '/v1/responses', queue: 'chat', name: 'responses' },
} as const satisfies Record<string, EndpointShape>;

/** One row of the endpoints table. */
export type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];
export type Capability = Endpoint['capability'];

/** Every capability, once each, in the table's order (several endpoints may share one). */
export const CAPABILITIES: readonly Capability[] = [
  ...new Set(Object.values(ENDPOINTS).map((endpoint) => endpoint.capability)),
];
