import OpenAI from 'openai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApplication, getJson, RunningApi, startApi, testEnv } from '../helpers/gateway';

// A catalog of its own, so the features asserted are the ones written here: a chat model with a full route, a
// narrower one and one whose upstream is not configured; an alias; an embeddings model.
const CATALOG = `
currency: CNY
models:
  - id: chat-2025-01-01
    capability: chat
    family: chat
    aliases: [chat-latest]
    created: 2025-01-01
    limits: { max_tokens: 4096 }
    price: { per_1k_input_tokens: 0.001, per_1k_output_tokens: 0.002 }
    routes:
      - { provider: openai-compatible, upstream: narrow, model: qwen-plus, features: [tools, json_object, n] }
      - { provider: openai-compatible, upstream: missing, model: gpt-4o, features: [audio_output] }
      - { provider: openai-compatible, upstream: wide, model: gpt-4o-mini, features: [tools, logprobs, logit_bias], responses: true }
  - id: chat-unrouted
    capability: chat
    created: 2025-02-01
    deprecated: "2026-01-01"
    limits: { max_tokens: 1024 }
    price: {}
    routes: [{ provider: openai-compatible, upstream: missing, model: gpt-4o }]
  - id: embed-small
    capability: embeddings
    created: 2025-03-01
    limits: { max_inputs: 10, max_input_tokens: 8192, dimensions: [1024, 256], default_dimensions: 1024 }
    price: { per_1k_input_tokens: 0.0005 }
    routes: [{ provider: openai-compatible, upstream: wide, model: text-embedding-3-small }]
`;

describe('GET /v1/models and GET /v1/models/{id}', () => {
  let api: RunningApi;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    const catalog = join(mkdtempSync(join(tmpdir(), 'models-e2e-')), 'models.yaml');
    writeFileSync(catalog, CATALOG);
    api = await startApi(
      testEnv({
        MODELS_CONFIG: catalog,
        UPSTREAM_NARROW_BASE_URL: 'http://127.0.0.1:9/v1',
        UPSTREAM_WIDE_BASE_URL: 'http://127.0.0.1:9/v1',
      }),
    );
    ({ apiKey } = await createApplication(api));
    client = new OpenAI({ apiKey, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });

  afterAll(() => api?.close());

  it('retrieves a model in OpenAI shape with the features its configured routes honour', async () => {
    const model = await client.models.retrieve('chat-2025-01-01');
    expect(model).toEqual({
      id: 'chat-2025-01-01',
      object: 'model',
      created: Date.UTC(2025, 0, 1) / 1000,
      owned_by: 'model-gateway',
      capability: 'chat',
      available: true,
      family: 'chat',
      limits: { max_tokens: 4096 },
      // The union over the reachable routes, in the order of the feature list; the unconfigured route adds none.
      features: ['tools', 'json_object', 'logprobs', 'n', 'logit_bias'],
      routes: [
        { provider: 'openai-compatible', features: ['tools', 'json_object', 'n'] },
        // This route's upstream takes POST /v1/responses as sent.
        { provider: 'openai-compatible', features: ['tools', 'logprobs', 'logit_bias'], responses: true },
      ],
    });
  });

  it('resolves an alias to its model, naming it in alias_of', async () => {
    const alias = await client.models.retrieve('chat-latest');
    expect(alias).toMatchObject({ id: 'chat-latest', object: 'model', alias_of: 'chat-2025-01-01' });
    const { id: _id, alias_of: _of, ...rest } = alias as unknown as Record<string, unknown>;
    const { id: _modelId, ...model } = (await client.models.retrieve('chat-2025-01-01')) as unknown as Record<
      string,
      unknown
    >;
    expect(rest).toEqual(model);
  });

  it('shows a chat model without a configured route as unavailable, with no features', async () => {
    expect(await client.models.retrieve('chat-unrouted')).toMatchObject({
      available: false,
      deprecated: '2026-01-01',
      features: [],
      routes: [],
    });
  });

  it('shows an embeddings model with its limits and no chat features', async () => {
    const model = (await client.models.retrieve('embed-small')) as unknown as Record<string, unknown>;
    expect(model).toMatchObject({
      capability: 'embeddings',
      limits: { max_inputs: 10, max_input_tokens: 8192, dimensions: [1024, 256], default_dimensions: 1024 },
    });
    expect(model).not.toHaveProperty('features');
  });

  it('answers an unknown model 404 NotFound in the envelope, which the SDK raises as NotFoundError', async () => {
    const failure = await client.models.retrieve('no-such-model').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect((failure as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
      code: 'NotFound',
      type: 'invalid_request_error',
      param: 'model',
    });
  });

  it('lists every model and alias, each entry the same as its retrieve', async () => {
    const listed = [];
    for await (const model of client.models.list()) listed.push(model);
    expect(listed.map((model) => model.id)).toEqual(['chat-2025-01-01', 'chat-latest', 'chat-unrouted', 'embed-small']);
    for (const model of listed) expect(await client.models.retrieve(model.id)).toEqual(model);
  });

  it('requires a key for a single model too', async () => {
    const response = await getJson(`${api.url}/v1/models/chat-latest`);
    expect(response.status).toBe(401);
  });
});
