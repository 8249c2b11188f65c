import { OpenAiFake } from '../fakes/openai-fake';
import { createApplication, postJson, RunningApi, startApi, startWorker, testEnv } from '../helpers/gateway';

// Counted with the tokenizers in libs/catalog/src/tokenizers (exact figures in tokenizers.spec.ts).
// 110 characters: 50 Qwen2 tokens, 120 cl100k_base ones, and 100 by a count of words and CJK characters.
const CHINESE = '人工智能正在改变世界。'.repeat(10);
// 680 characters of code: 232 cl100k_base tokens, 120 words.
const CODE = 'const total = items.map((item) => item.price * item.qty).reduce((a, b) => a + b, 0);\n'.repeat(8);

describe('token counts by the model’s tokenizer', () => {
  const upstream = new OpenAiFake();
  let api: RunningApi;
  let worker: { close(): Promise<void> };

  beforeAll(async () => {
    await upstream.start();
    const env = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  beforeEach(() => upstream.reset());

  const embed = (apiKey: string, model: string, input: string) =>
    postJson(`${api.url}/v1/embeddings`, { model, input }, apiKey);

  it('reserves a Chinese embeddings input at its Qwen2 count: admitted by a quota of exactly that', async () => {
    // text-embedding-v4 counts with Qwen2 (the catalog's tokenizer): 50 tokens, where words would reserve 100.
    const exact = await createApplication(api, 'quota-50', { tokenQuota: 50 });
    expect((await embed(exact.apiKey, 'text-embedding-v4', CHINESE)).status).toBe(200);
    const short = await createApplication(api, 'quota-49', { tokenQuota: 49 });
    const refused = await embed(short.apiKey, 'text-embedding-v4', CHINESE);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('QuotaExceeded');
    expect(upstream.calls).toHaveLength(1);
  });

  it('reserves a code-heavy chat prompt at its real count and refuses it past the quota', async () => {
    // x-chat counts with cl100k_base (the catalog's default): 232 prompt tokens + max_tokens 10, where words would
    // have reserved 130 and let the request through.
    const chat = (apiKey: string) =>
      postJson(
        `${api.url}/v1/chat/completions`,
        { model: 'x-chat', messages: [{ role: 'user', content: CODE }], max_tokens: 10 },
        apiKey,
      );
    const short = await createApplication(api, 'chat-quota-241', { tokenQuota: 241 });
    const refused = await chat(short.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('QuotaExceeded');
    expect(upstream.calls).toHaveLength(0);
    const exact = await createApplication(api, 'chat-quota-242', { tokenQuota: 242 });
    expect((await chat(exact.apiKey)).status).toBe(200);
  });

  it('counts max_input_tokens with the model’s tokenizer', async () => {
    const { apiKey } = await createApplication(api, 'per-input');
    // 7,700 characters of Chinese: 3,500 Qwen2 tokens, 8,400 cl100k_base ones; both models take 8,192.
    const chinese = '人工智能正在改变世界。'.repeat(700);
    // 9,000 digits: 9,000 Qwen2 tokens (one a digit), 3,000 cl100k_base ones (three a token).
    const digits = '1234567890'.repeat(900);
    expect((await embed(apiKey, 'text-embedding-v4', chinese)).status).toBe(200);
    const tooLong = await embed(apiKey, 'text-embedding-v4', digits);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({
      code: 'InvalidParameter',
      param: 'input',
      message: 'input is longer than 8192 tokens',
    });
    // OpenAI's model counts with cl100k_base: the other way round.
    expect((await embed(apiKey, 'openai-embedding', digits)).status).toBe(200);
    const refused = await embed(apiKey, 'openai-embedding', chinese);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('input is longer than 8192 tokens');
    expect(upstream.calls.map((call) => call.body.model)).toEqual(['text-embedding-v4', 'text-embedding-3-small']);
  });
});
