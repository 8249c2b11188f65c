import { GatewayError } from '@gateway/common';
import { historyOf, responsesParam, toChat } from './responses-to-chat';

describe('a Responses request as a Chat Completions request', () => {
  it('puts the instructions first, then the history, then a string input as a user message', () => {
    const { body, conversationStart } = toChat({ model: 'x-chat', instructions: 'be brief', input: 'hello' }, [
      { role: 'user', content: 'earlier' },
    ]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'earlier' },
      { role: 'user', content: 'hello' },
    ]);
    // The stored conversation starts after the instructions, which a continuation does not carry over.
    expect(conversationStart).toBe(1);
  });

  it('maps the sampling, token, tool and format fields to their chat names, and keeps store and metadata back', () => {
    const { body } = toChat(
      {
        model: 'x-chat',
        input: 'hi',
        max_output_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        tools: [
          {
            type: 'function',
            name: 'weather',
            description: 'look it up',
            parameters: { type: 'object' },
            strict: true,
          },
        ],
        tool_choice: { type: 'function', name: 'weather' },
        parallel_tool_calls: false,
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
        reasoning: { effort: 'low' },
        store: true,
        metadata: { a: 'b' },
        user: 'u1',
        stream: true,
      },
      [],
    );
    expect(body).toEqual({
      model: 'x-chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      max_completion_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'look it up', parameters: { type: 'object' }, strict: true },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      parallel_tool_calls: false,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      reasoning_effort: 'low',
      user: 'u1',
    });
  });

  it('turns a tool round trip into an assistant turn with its calls and one tool message per output', () => {
    const { body } = toChat(
      {
        model: 'x-chat',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Weather in ' },
              { type: 'input_text', text: 'Oslo?' },
            ],
          },
          { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call', call_id: 'call_2', name: 'time', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '12:00' }] },
        ],
      },
      [],
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: '12:00' },
    ]);
  });

  it('continues from a previous response’s output: its message text, and its calls on the same turn', () => {
    expect(
      historyOf([
        {
          type: 'message',
          id: 'msg_x_0',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }],
        },
        {
          type: 'function_call',
          id: 'fc_x_1',
          call_id: 'call_9',
          name: 'weather',
          arguments: '{}',
          status: 'completed',
        },
      ]),
    ).toEqual([
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{}' } }],
      },
    ]);
  });

  it('sends an image part as chat’s image_url, and refuses one given by file id', () => {
    const image = { type: 'input_image' as const, image_url: 'https://example.com/a.png', detail: 'low' as const };
    const { body } = toChat(
      { model: 'x-chat', input: [{ role: 'user', content: [{ type: 'input_text', text: 'what is it?' }, image] }] },
      [],
    );
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'what is it?' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
    ]);
    const byId = () =>
      toChat({ model: 'x-chat', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, []);
    expect(byId).toThrow(GatewayError);
    expect(byId).toThrow(/input\[0\]\.content\[0\]\.file_id/);
  });

  it('names a chat field’s problem as the Responses caller wrote it', () => {
    const { sources } = toChat(
      {
        model: 'x-chat',
        instructions: 'x',
        input: [
          { role: 'user', content: 'q' },
          { type: 'function_call_output', call_id: 'nope', output: 'r' },
        ],
      },
      [],
    );
    expect(responsesParam('messages[2].tool_call_id', sources)).toBe('input[1].call_id');
    expect(responsesParam('messages[0].content', sources)).toBe('instructions');
    expect(responsesParam('messages[1].content', sources)).toBe('input[0].content');
    expect(responsesParam('max_completion_tokens', sources)).toBe('max_output_tokens');
    expect(responsesParam('response_format.json_schema.name', sources)).toBe('text.format.name');
    expect(responsesParam('tools[2].function.parameters', sources)).toBe('tools[2].parameters');
    expect(responsesParam('tool_choice.function.name', sources)).toBe('tool_choice.name');
    expect(responsesParam('reasoning_effort', sources)).toBe('reasoning.effort');
    expect(responsesParam('temperature', sources)).toBe('temperature');
  });
});
