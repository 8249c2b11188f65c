import type { ChatRequestBody } from '@gateway/contracts';
import { renderPrompt } from './chat-prompt';
import { planToolUse } from './tool-choice';

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

const render = (request: ChatRequestBody) => renderPrompt(request, planToolUse(request));

describe('renderPrompt', () => {
  it('keeps system, developer (as system), user and assistant turns, text parts joined', () => {
    expect(
      render({
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hello, ' },
              { type: 'text', text: 'there.' },
            ],
          },
          { role: 'assistant', content: 'Hi!' },
          { role: 'user', content: 'Bye.' },
        ],
      }),
    ).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello, there.' },
      { role: 'assistant', content: 'Hi!' },
      { role: 'user', content: 'Bye.' },
    ]);
  });

  it('refuses a part that is not text, naming it', () => {
    expect(() =>
      render({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            ],
          },
        ],
      }),
    ).toThrow('messages[0].content[1] is of type image_url; the local model reads text parts only');
  });

  it('writes the tools and their format into the system turn, after the caller’s', () => {
    const [system, user] = render({
      messages: [
        { role: 'system', content: 'You help with travel.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [weather],
    });
    expect(system.role).toBe('system');
    expect(system.content.startsWith('You help with travel.\n\n')).toBe(true);
    expect(system.content).toContain('<tools>[{"name":"get_weather","parameters":{"type":"object"');
    expect(system.content).toContain('[{"name": "func_name1", "arguments": {');
    expect(user).toEqual({ role: 'user', content: 'Weather in Paris?' });
  });

  it("writes tool results into the question's turn, each as the call that returned it", () => {
    const rendered = render({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: 'rainy' }] },
      ],
      tools: [weather],
    });
    // The last message is a tool result: auto answers in text, so no tool instructions.
    expect(rendered).toEqual([
      {
        role: 'user',
        content:
          'Weather in Paris and Rome?\n\nget_weather({"city":"Paris"}) returned: sunny\n' +
          'get_weather({"city":"Rome"}) returned: rainy\nAnswer the question using this information.',
      },
    ]);
  });

  it('keeps what an assistant said beside its calls, and later questions apart', () => {
    const call = { id: 'call_a', type: 'function' as const, function: { name: 'add', arguments: '{"a":2,"b":3}' } };
    expect(
      render({
        messages: [
          { role: 'user', content: 'Add 2 and 3.' },
          { role: 'assistant', content: 'Let me add them.', tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_a', content: '5' },
          { role: 'assistant', content: 'It is 5.' },
          { role: 'user', content: 'Thanks!' },
        ],
        tools: [weather],
        tool_choice: 'none',
      }),
    ).toEqual([
      { role: 'user', content: 'Add 2 and 3.' },
      { role: 'assistant', content: 'Let me add them.' },
      { role: 'user', content: 'add({"a":2,"b":3}) returned: 5\nAnswer the question using this information.' },
      { role: 'assistant', content: 'It is 5.' },
      { role: 'user', content: 'Thanks!' },
    ]);
  });

  it('reads the legacy function role and function_call the same way', () => {
    expect(
      render({
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { role: 'function', name: 'get_weather', content: 'snow' },
        ],
        functions: [{ name: 'get_weather' }],
      }),
    ).toEqual([
      {
        role: 'user',
        content: 'Weather?\n\nget_weather({"city":"Oslo"}) returned: snow\nAnswer the question using this information.',
      },
    ]);
  });

  it('asks for JSON of the schema in a system turn of its own when the caller gave none', () => {
    const [system] = render({
      messages: [{ role: 'user', content: 'A person.' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          schema: { $schema: 'x', type: 'object', properties: { name: { type: 'string' } } },
        },
      },
    });
    expect(system).toEqual({
      role: 'system',
      content:
        'Answer with person in JSON that matches this JSON Schema:\n{"type":"object","properties":{"name":{"type":"string"}}}',
    });
  });
});
