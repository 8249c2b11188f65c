import { CatalogService } from '@gateway/catalog';
import { GatewayError, loadConfig } from '@gateway/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatRequestService } from './chat-request.service';

/** A catalog with a model whose two routes honour different features, and a local-only one. */
const CATALOG = `
currency: CNY
models:
  - id: two-routes
    capability: chat
    limits: { max_tokens: 100 }
    routes:
      - { provider: openai-compatible, upstream: full, model: a, features: [tools, logprobs, image_input] }
      - { provider: openai-compatible, upstream: narrow, model: b, features: [tools, n] }
  - id: local-chat
    capability: chat
    routes: [{ provider: local, model: smollm2-135m-instruct }]
  - id: qwen-chat
    capability: chat
    routes: [{ provider: openai-compatible, upstream: full, model: qwen-plus, tokenizer: qwen2 }]
`;

function service(): ChatRequestService {
  const file = join(mkdtempSync(join(tmpdir(), 'chat-catalog-')), 'models.yaml');
  writeFileSync(file, CATALOG);
  const config = loadConfig({
    MODELS_CONFIG: file,
    MASTER_KEY: 'a'.repeat(64),
    UPSTREAM_FULL_BASE_URL: 'http://127.0.0.1:1/v1',
    UPSTREAM_NARROW_BASE_URL: 'http://127.0.0.1:2/v1',
  });
  return new ChatRequestService(new CatalogService(config));
}

const user = { role: 'user', content: 'hi' };
const weather = { type: 'function', function: { name: 'weather', parameters: { type: 'object' } } };

function refusal(body: Record<string, unknown>, model = 'two-routes'): GatewayError {
  try {
    service().check({ model, messages: [user], ...body });
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('the request was accepted');
}

describe('ChatRequestService', () => {
  it('carries the request as sent, less model and streaming, with the features it needs', () => {
    const checked = service().check({
      model: 'two-routes',
      messages: [{ role: 'developer', content: 'be brief' }, user],
      tools: [weather],
      tool_choice: 'required',
      max_completion_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
      metadata: { team: 'a' },
    });
    expect(checked.stream).toBe(true);
    expect(checked.request).toEqual({
      request: {
        messages: [{ role: 'developer', content: 'be brief' }, user],
        tools: [weather],
        tool_choice: 'required',
        max_completion_tokens: 20,
        metadata: { team: 'a' },
      },
      features: ['tools'],
      stream: { includeUsage: true },
    });
  });

  it('accepts every field at its neutral value without asking anything of a route', () => {
    const checked = service().check({
      model: 'local-chat',
      messages: [user],
      n: 1,
      logprobs: false,
      presence_penalty: 0,
      frequency_penalty: 0,
      logit_bias: {},
      parallel_tool_calls: true,
      tool_choice: 'none',
      tools: [weather],
      response_format: { type: 'text' },
      store: false,
      service_tier: 'auto',
      user: 'u-1',
    });
    expect(checked.request.features).toEqual([]);
  });

  it('reserves the completion budget of every choice', () => {
    const checked = service().check({ model: 'two-routes', messages: [user], n: 3, max_tokens: 10, tools: [weather] });
    expect(checked.reserveTokens()).toBe(1 + 3 * 10);
  });

  it('reserves the messages as the model’s tokenizer counts them', () => {
    const messages = [{ role: 'user', content: '你好，世界！' }];
    // Qwen2: 你好 | ， | 世界 | ！; cl100k_base (the default) splits the characters finer.
    expect(service().check({ model: 'qwen-chat', messages, max_tokens: 10 }).reserveTokens()).toBe(4 + 10);
    expect(service().check({ model: 'two-routes', messages, max_tokens: 10 }).reserveTokens()).toBe(7 + 10);
  });

  it.each([
    ['logprobs where no route gives them', 'local-chat', { logprobs: true }, 'logprobs'],
    [
      'an image part for a text-only model',
      'local-chat',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] },
      'messages[0].content[0]',
    ],
    ['reasoning_effort', 'local-chat', { reasoning_effort: 'high' }, 'reasoning_effort'],
  ])('refuses %s by name: 400 UnsupportedParameter', (_name, model, body, param) => {
    const error = refusal(body, model);
    expect(error).toMatchObject({ code: 'UnsupportedParameter', param });
    expect(error.message).toContain(model);
  });

  it('refuses features that only different routes have, together', () => {
    expect(refusal({ logprobs: true, n: 2 })).toMatchObject({ code: 'UnsupportedParameter' });
    expect(() =>
      service().check({ model: 'two-routes', messages: [user], logprobs: true, tools: [weather] }),
    ).not.toThrow();
  });

  it.each([
    ['an unknown field', { frobnicate: 1 }, 'frobnicate'],
    [
      'a tool result answering no call',
      { messages: [user, { role: 'tool', tool_call_id: 'c9', content: 'x' }] },
      'messages[1].tool_call_id',
    ],
    ['an empty assistant turn', { messages: [user, { role: 'assistant' }] }, 'messages[1].content'],
    ['tool_choice without tools', { tool_choice: 'auto' }, 'tool_choice'],
    [
      'a tool_choice naming another tool',
      { tools: [weather], tool_choice: { type: 'function', function: { name: 'time' } } },
      'tool_choice.function.name',
    ],
    ['two tools of one name', { tools: [weather, weather] }, 'tools'],
    ['top_logprobs without logprobs', { top_logprobs: 2 }, 'top_logprobs'],
    ['max_completion_tokens over the model limit', { max_completion_tokens: 101 }, 'max_completion_tokens'],
    ['a penalty above 2', { presence_penalty: 2.5 }, 'presence_penalty'],
    ['a logit_bias key that is no token id', { logit_bias: { abc: 1 } }, 'logit_bias'],
    [
      'a content part of no known type',
      { messages: [{ role: 'user', content: [{ type: 'video' }] }] },
      'messages[0].content[0].type',
    ],
    [
      'a json_schema without a name',
      { response_format: { type: 'json_schema', json_schema: { schema: {} } } },
      'response_format.json_schema.name',
    ],
  ])('refuses %s: 400 InvalidParameter naming it', (_name, body, param) => {
    expect(refusal(body)).toMatchObject({ code: 'InvalidParameter', param });
  });

  it('accepts a tool-call round trip: assistant tool_calls with null content, then the tool result', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } };
    expect(() =>
      service().check({
        model: 'two-routes',
        messages: [
          user,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
        tools: [weather],
      }),
    ).not.toThrow();
  });
});
