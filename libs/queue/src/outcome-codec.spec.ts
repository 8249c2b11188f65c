import { decodeOutcome, encodeOutcome } from './outcome-codec';

describe('outcome codec', () => {
  it('round-trips a success whose body holds newlines, leaving the body text untouched', () => {
    const body = JSON.stringify({ choices: [{ message: { content: 'line one\nline two' } }] }, null, 2);
    const text = encodeOutcome('task_1', {
      ok: true,
      body,
      provider: 'local',
      providerMs: 3,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
    expect(decodeOutcome(text)).toEqual({
      taskId: 'task_1',
      outcome: { ok: true, body, provider: 'local', providerMs: 3, usage: { prompt_tokens: 1, total_tokens: 1 } },
    });
  });

  it('round-trips a failure', () => {
    const error = { status: 500, code: 'UpstreamError', message: 'down' };
    expect(decodeOutcome(encodeOutcome('task_2', { ok: false, error, providerMs: 0 }))).toEqual({
      taskId: 'task_2',
      outcome: { ok: false, error, providerMs: 0 },
    });
  });
});
