import { ProviderError } from '../provider.types';
import { tokenizerOf } from '@gateway/catalog';
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

  it('is billed by the upstream’s usage, or by the route’s tokenizer when it sent none', () => {
    const call = { request: { messages: [{ role: 'user' as const, content: '你好，世界！' }] }, features: [] };
    const qwen2 = tokenizerOf('qwen2');
    const counted = responsesAnswerOf(
      { status: 'completed', output: [], usage: { input_tokens: 11, output_tokens: 4 } },
      call,
      qwen2,
      'req_1',
    );
    expect(counted).toMatchObject({ promptTokens: 11, completionTokens: 4, requestId: 'req_1' });
    const output = [{ type: 'message', content: [{ type: 'output_text', text: 'tiktoken is great!' }] }];
    // Qwen2: 你好 | ， | 世界 | ！ and t | ik | token | is | great | !
    expect(responsesAnswerOf({ status: 'cancelled', output, usage: null }, call, qwen2)).toMatchObject({
      promptTokens: 4,
      completionTokens: 6,
    });
    // cl100k_base splits the Chinese finer (7); the answer's text is 6 tokens there too.
    expect(
      responsesAnswerOf({ status: 'cancelled', output, usage: null }, call, tokenizerOf('cl100k_base')),
    ).toMatchObject({ promptTokens: 7, completionTokens: 6 });
  });
});
