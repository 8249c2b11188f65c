import { ProviderError } from '../provider.types';
import { readResponse, responsesAnswerOf } from './responses-endpoint';

describe('an upstream’s answer on its Responses endpoint', () => {
  it('takes a finished response, and counts a failed or unfinished one as a failure to retry elsewhere', () => {
    expect(readResponse({ status: 'incomplete', output: [] })).toMatchObject({ status: 'incomplete' });
    for (const body of [
      { status: 'failed', output: [], error: { code: 'server_error', message: 'boom' } },
      { status: 'in_progress', output: [] },
      { status: 'completed' },
    ]) {
      expect(() => readResponse(body)).toThrow(ProviderError);
      expect(() => readResponse(body)).toThrow(expect.objectContaining({ failure: 'retryable' }));
    }
  });

  it('is billed by the upstream’s usage, or by the gateway’s estimate when it sent none', () => {
    const call = { request: { messages: [{ role: 'user' as const, content: 'one two three' }] }, features: [] };
    const counted = responsesAnswerOf(
      { status: 'completed', output: [], usage: { input_tokens: 11, output_tokens: 4 } },
      call,
      'req_1',
    );
    expect(counted).toMatchObject({ promptTokens: 11, completionTokens: 4, requestId: 'req_1' });
    const output = [{ type: 'message', content: [{ type: 'output_text', text: 'four five' }] }];
    const estimated = responsesAnswerOf({ status: 'cancelled', output, usage: null }, call);
    expect(estimated).toMatchObject({ promptTokens: 3, completionTokens: 2 });
  });
});
