import type { ResponseObject } from '@gateway/contracts';
import { upstreamRequest } from './responses-upstream';
import type { StoredResponse } from './stored-responses.service';

describe('the Responses request an upstream with the endpoint is sent', () => {
  it('is the caller’s as sent, less store, metadata and stream, and told to store nothing', () => {
    const sent = upstreamRequest(
      {
        model: 'x-chat',
        input: 'hello',
        instructions: 'be brief',
        max_output_tokens: 32,
        temperature: 0.3,
        tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' }, strict: false }],
        store: true,
        metadata: { ticket: '42' },
        user: 'u-1',
        stream: false,
        stream_options: { include_obfuscation: false },
      },
      null,
    );
    expect(sent).toEqual({
      input: 'hello',
      instructions: 'be brief',
      max_output_tokens: 32,
      temperature: 0.3,
      tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' }, strict: false }],
      user: 'u-1',
      store: false,
    });
  });

  it('keeps stream_options for a streamed request', () => {
    const sent = upstreamRequest(
      { model: 'x-chat', input: 'hi', stream: true, stream_options: { include_obfuscation: false } },
      null,
    );
    expect(sent.stream_options).toEqual({ include_obfuscation: false });
    expect(sent).not.toHaveProperty('stream');
  });

  it('expands a previous response into items before the input, without the gateway’s ids', () => {
    const previous: StoredResponse = {
      conversation: [
        { role: 'user', content: [{ type: 'text', text: 'weather in Oslo?' }] },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
      response: {
        output: [
          {
            type: 'message',
            id: 'msg_0123456789abcdefghijKL_0',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'It is sunny.', annotations: [], logprobs: [] }],
          },
        ],
      } as unknown as ResponseObject,
    };
    const sent = upstreamRequest(
      {
        model: 'x-chat',
        previous_response_id: 'resp_0123456789abcdefghijKL',
        input: [
          { type: 'function_call', id: 'fc_0123456789abcdefghijKL_1', call_id: 'call_2', name: 'w', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_2', output: 'rain', id: null },
          { role: 'user', content: 'and tomorrow?' },
        ],
      },
      previous,
    );
    expect(sent).toEqual({
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'weather in Oslo?' }] },
        { role: 'assistant', content: 'Let me look.' },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        {
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'It is sunny.', annotations: [], logprobs: [] }],
        },
        { type: 'function_call', call_id: 'call_2', name: 'w', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_2', output: 'rain' },
        { role: 'user', content: 'and tomorrow?' },
      ],
      store: false,
    });
  });

  it('sends a string input after a previous response as a user message', () => {
    const previous = { conversation: [{ role: 'user', content: 'hi' }], response: { output: [] } };
    const sent = upstreamRequest({ model: 'x-chat', input: 'again' }, previous as unknown as StoredResponse);
    expect(sent.input).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'again' },
    ]);
  });
});
