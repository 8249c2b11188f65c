import { MetricsService } from '@gateway/metrics';
import { join } from 'node:path';
import {
  createApplication,
  metricValue,
  postJson,
  ROOT,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
} from '../helpers/gateway';
import { ensureLocalModels } from '../helpers/client-calls';

const MODEL = 'smollm2-135m-instruct';
const CONTEXT_REFUSAL = /the prompt is \d+ tokens; the local chat model's context holds 2048/;

/** A prompt longer than the local chat model's 2048-token context is the caller's to change: a final 400, run once. */
describe('a prompt past the local chat model’s context', () => {
  let api: RunningApi;
  let worker: RunningWorker;
  let apiKey: string;

  beforeAll(async () => {
    await ensureLocalModels();
    const env = testEnv({ LOCAL_MODELS: 'on', LOCAL_MODELS_DIR: join(ROOT, '.data', 'models'), JOB_ATTEMPTS: 3 });
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    ({ apiKey } = await createApplication(api));
  }, 180_000);

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
  });

  /** Calls the worker made to the local chat model, each attempt of a retried job included. */
  const modelCalls = async () => {
    const exposition = await worker.app.get(MetricsService).registry.metrics();
    return ['ok', 'error']
      .map((outcome) =>
        metricValue(exposition, 'gateway_upstream_request_duration_seconds_count', { provider: 'local', outcome }),
      )
      .reduce((sum: number, calls) => sum + (calls ?? 0), 0);
  };

  const chat = (content: string, fields: Record<string, unknown> = {}) => ({
    path: '/v1/chat/completions',
    body: { model: MODEL, messages: [{ role: 'user', content }], max_tokens: 16, ...fields },
  });

  it.each([
    ['far past it', chat('word '.repeat(2500))],
    ['far past it, streamed', chat('word '.repeat(2500), { stream: true })],
    // 2046 words fit any count that takes a word for a token; only the model's own (2057 with its template) refuses.
    ['just past it', chat('word '.repeat(2046))],
    [
      'far past it, through the Responses API',
      {
        path: '/v1/responses',
        body: { model: MODEL, input: 'word '.repeat(2500), max_output_tokens: 16 },
      },
    ],
  ])(
    'answers a prompt %s with 400 InvalidParameter, after one call of the model',
    async (_, { path, body }) => {
      const before = await modelCalls();
      const response = await postJson(`${api.url}${path}`, body, apiKey);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'InvalidParameter', type: 'invalid_request_error' });
      expect(response.body.error.message).toMatch(CONTEXT_REFUSAL);
      expect((await modelCalls()) - before).toBe(1);
    },
    120_000,
  );
});
