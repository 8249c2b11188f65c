import type { ChatAnswer } from '@gateway/providers';
import { finalResponse, ResponsesTask } from './response-object';

const echo = {
  instructions: 'be brief',
  max_output_tokens: 64,
  metadata: { topic: 'weather' },
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: true,
  temperature: 0.5,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' }, strict: null }],
  top_p: null,
  truncation: 'disabled',
  user: null,
  safety_identifier: null,
  prompt_cache_key: null,
  service_tier: null,
};

const job = {
  taskId: 'task_0123456789abcdefghijKL',
  model: 'x-chat',
  createdAt: 1_795_300_000_500,
  responses: { echo },
} as unknown as ResponsesTask;

function answer(message: Record<string, unknown>, finishReason: string, usageDetails?: Record<string, unknown>) {
  return {
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason, logprobs: null }],
    promptTokens: 12,
    completionTokens: 7,
    usageDetails,
  } as ChatAnswer;
}

describe('the response object of a chat answer', () => {
  it('is OpenAI’s shape: ids from the task, the request echoed, text as an output_text part, usage', () => {
    const response = finalResponse(job, answer({ content: 'Sunny.' }, 'stop'));
    expect(response).toEqual({
      id: 'resp_0123456789abcdefghijKL',
      object: 'response',
      created_at: 1_795_300_000,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      model: 'x-chat',
      output: [
        {
          type: 'message',
          id: 'msg_0123456789abcdefghijKL_0',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Sunny.', annotations: [], logprobs: [] }],
        },
      ],
      ...echo,
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 19,
      },
    });
  });

  it('answers tool calls as function_call items, with no empty message before them', () => {
    const response = finalResponse(
      job,
      answer(
        {
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        'tool_calls',
      ),
    );
    expect(response.output).toEqual([
      {
        type: 'function_call',
        id: 'fc_0123456789abcdefghijKL_0',
        call_id: 'call_a',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        id: 'fc_0123456789abcdefghijKL_1',
        call_id: 'call_b',
        name: 'weather',
        arguments: '{"city":"Rome"}',
        status: 'completed',
      },
    ]);
    expect(response.status).toBe('completed');
  });

  it('is incomplete, with the reason, when the token limit cut it', () => {
    const response = finalResponse(job, answer({ content: 'It is' }, 'length'));
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output[0].status).toBe('incomplete');
  });

  it('answers a refusal as a refusal part, and passes on the upstream’s cached and reasoning tokens', () => {
    const response = finalResponse(
      job,
      answer({ content: null, refusal: 'I cannot help with that.' }, 'stop', {
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
      }),
    );
    expect(response.output[0]).toMatchObject({ content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] });
    expect(response.usage).toMatchObject({
      input_tokens_details: { cached_tokens: 4 },
      output_tokens_details: { reasoning_tokens: 2 },
    });
  });
});
