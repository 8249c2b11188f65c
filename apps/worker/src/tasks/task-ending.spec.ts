import type { UpstreamAttempt } from '@gateway/contracts';
import { meteredRoutes, withoutReports } from './task-ending';
import type { ExecutedTask } from './task-service';

const executed = (fields: Partial<ExecutedTask>): ExecutedTask => ({
  body: '{}',
  usage: { prompt_tokens: 0, total_tokens: 0 },
  provider: 'openai-compatible',
  providerMs: 1,
  costNanos: 0,
  ...fields,
});

describe('a task record’s metered routes', () => {
  it('puts what an embeddings route billed beside what all its answers reported, a failed route’s parts included', () => {
    const attempts: UpstreamAttempt[] = [
      { route: 'a:embed', outcome: 'ok', ms: 1, reported: { promptTokens: 40 } },
      { route: 'a:embed', outcome: 'retryable', status: 503, ms: 1 },
      { route: 'b:embed', outcome: 'ok', ms: 1, reported: { promptTokens: 60 } },
      { route: 'b:embed', outcome: 'ok', ms: 1, reported: { promptTokens: 40 } },
    ];
    const task = executed({
      usage: { prompt_tokens: 100, total_tokens: 100 },
      route: 'b:embed',
      costNanos: 50_000,
    });
    expect(meteredRoutes(task, attempts)).toEqual([
      { route: 'b:embed', computed: { promptTokens: 100, costNanos: 50_000 }, reported: { promptTokens: 100 } },
      { route: 'a:embed', computed: {}, reported: { promptTokens: 40 } },
    ]);
    expect(withoutReports(attempts).some((attempt) => 'reported' in attempt)).toBe(false);
  });

  it('counts an image edit’s images and cost per route that made them, leaving the local engine’s out', () => {
    const attempts: UpstreamAttempt[] = [
      { route: 'dashscope:edit', image: 0, outcome: 'ok', ms: 1, reported: { images: 1 } },
      { route: 'dashscope:edit', image: 1, outcome: 'spent', ms: 1 },
    ];
    const task = executed({
      usage: { prompt_tokens: 5, total_tokens: 5, images: 2 },
      costNanos: 200_000_000 + 50_000_000,
      billedImages: [
        { index: 0, route: 'dashscope:edit', unitPriceNanos: 200_000_000, currency: 'CNY' },
        { index: 1, route: 'local:edit', unitPriceNanos: 50_000_000, currency: 'CNY' },
      ],
    });
    expect(meteredRoutes(task, attempts)).toEqual([
      { route: 'dashscope:edit', computed: { images: 1, costNanos: 200_000_000 }, reported: { images: 1 } },
    ]);
  });

  it('records no reported side for answers that stated nothing, and nothing at all for a local answer', () => {
    const attempts: UpstreamAttempt[] = [{ route: 'a:chat', outcome: 'ok', ms: 1 }];
    const chat = executed({ usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, route: 'a:chat' });
    expect(meteredRoutes(chat, attempts)).toEqual([
      { route: 'a:chat', computed: { promptTokens: 3, completionTokens: 2, costNanos: 0 } },
    ]);
    expect(meteredRoutes(executed({ route: 'local:chat' }), [])).toEqual([]);
    expect(meteredRoutes(undefined, attempts)).toEqual([]);
  });
});
