import { buildWebhookEvent, WebhookTask, webhookEventTypeOf, webhookIdOf } from './webhook-event';

const CREATED_AT = new Date('2025-12-20T10:15:20.874Z');
const FINISHED_AT = new Date('2025-12-20T10:15:32.051Z');
const NOW = new Date('2025-12-20T10:15:32.120Z');

function task(overrides: Partial<WebhookTask> = {}): WebhookTask {
  return {
    _id: 'task_4k2VhQ',
    appId: 'app_9Xc1mB',
    endpoint: 'images/edits',
    model: 'x-image-edit-plus',
    resolvedModel: 'x-image-edit-plus-2025-12-15',
    status: 'succeeded',
    usage: { prompt_tokens: 18, total_tokens: 18, images: 2 },
    costNanos: 400_000_000,
    result: JSON.stringify({
      created: 1766225732,
      data: [
        { url: 'http://localhost:3000/v1/files/img_a_0?exp=1&sig=x', revised_prompt: 'make it sepia' },
        { url: 'http://localhost:3000/v1/files/img_a_1?exp=1&sig=y', revised_prompt: 'make it sepia' },
      ],
      usage: { image_count: 2 },
    }),
    createdAt: CREATED_AT,
    finishedAt: FINISHED_AT,
    ...overrides,
  };
}

describe('buildWebhookEvent', () => {
  it('describes a succeeded image edit with its output URLs', () => {
    expect(buildWebhookEvent(task(), NOW)).toEqual({
      type: 'task.succeeded',
      timestamp: '2025-12-20T10:15:32.120Z',
      data: {
        task_id: 'task_4k2VhQ',
        app_id: 'app_9Xc1mB',
        endpoint: 'images/edits',
        model: 'x-image-edit-plus',
        resolved_model: 'x-image-edit-plus-2025-12-15',
        status: 'succeeded',
        usage: { prompt_tokens: 18, total_tokens: 18, images: 2 },
        cost: 0.4,
        result_urls: [
          'http://localhost:3000/v1/files/img_a_0?exp=1&sig=x',
          'http://localhost:3000/v1/files/img_a_1?exp=1&sig=y',
        ],
        error: null,
        created_at: '2025-12-20T10:15:20.874Z',
        finished_at: '2025-12-20T10:15:32.051Z',
      },
    });
  });

  it('carries the cost as the exact decimal of its integer nanos', () => {
    expect(JSON.stringify(buildWebhookEvent(task(), NOW))).toContain('"cost":0.4,');
    // 2 tokens at 0.0005 per 1k.
    expect(JSON.stringify(buildWebhookEvent(task({ costNanos: 1_000 }), NOW))).toContain('"cost":0.000001,');
  });

  it('leaves the result body out: an embeddings event has no URLs and none of the vectors', () => {
    const vector = Array.from({ length: 1024 }, (_, i) => i / 1024);
    const result = JSON.stringify({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: vector }],
      model: 'text-embedding-v4',
    });
    const event = buildWebhookEvent(
      task({ endpoint: 'embeddings', model: 'text-embedding-v4', resolvedModel: 'text-embedding-v4', result }),
      NOW,
    );
    expect(event.data.result_urls).toEqual([]);
    expect(JSON.stringify(event)).not.toContain('embedding"');
    expect(JSON.stringify(event).length).toBeLessThan(1000);
  });

  it('has no URLs for a chat completion, a missing result or one that does not parse', () => {
    const chat = JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'see "url": here' } }] });
    expect(buildWebhookEvent(task({ result: chat }), NOW).data.result_urls).toEqual([]);
    expect(buildWebhookEvent(task({ result: undefined }), NOW).data.result_urls).toEqual([]);
    expect(buildWebhookEvent(task({ result: '{"data":[{"url":' }), NOW).data.result_urls).toEqual([]);
    expect(
      buildWebhookEvent(task({ result: '{"data":[{"url":5},{"b64_json":"…"},null,{"url":"u"}]}' }), NOW).data
        .result_urls,
    ).toEqual(['u']);
  });

  it('describes a failed task with its error, a null param and null usage', () => {
    const failed = task({
      status: 'failed',
      usage: undefined,
      costNanos: 0,
      result: undefined,
      error: { status: 500, code: 'UpstreamError', message: 'the provider failed after 3 attempts' },
    });
    const event = buildWebhookEvent(failed, NOW);
    expect(event.type).toBe('task.failed');
    expect(event.data).toMatchObject({
      status: 'failed',
      usage: null,
      cost: 0,
      result_urls: [],
      error: { code: 'UpstreamError', message: 'the provider failed after 3 attempts', param: null },
    });
    expect(
      buildWebhookEvent(
        task({ status: 'failed', error: { status: 400, code: 'InvalidImage', message: 'm', param: 'input.messages' } }),
        NOW,
      ).data.error,
    ).toEqual({
      code: 'InvalidImage',
      message: 'm',
      param: 'input.messages',
    });
  });

  it('reads finished_at as null when the task has none', () => {
    expect(buildWebhookEvent(task({ finishedAt: undefined }), NOW).data.finished_at).toBeNull();
  });

  it('refuses tasks that fire no event', () => {
    expect(webhookEventTypeOf('cancelled')).toBeNull();
    expect(webhookEventTypeOf('running')).toBeNull();
    expect(() => buildWebhookEvent(task({ status: 'cancelled' }), NOW)).toThrow(
      'task task_4k2VhQ is cancelled; only succeeded and failed tasks fire webhooks',
    );
  });
});

describe('webhookIdOf', () => {
  it('is stable per task and event, so every attempt and redelivery carries the same id', () => {
    expect(webhookIdOf('task_4k2VhQ', 'task.succeeded')).toBe('msg_task_4k2VhQ_succeeded');
    expect(webhookIdOf('task_4k2VhQ', 'task.succeeded')).toBe(webhookIdOf('task_4k2VhQ', 'task.succeeded'));
    expect(webhookIdOf('task_4k2VhQ', 'task.failed')).toBe('msg_task_4k2VhQ_failed');
  });
});
