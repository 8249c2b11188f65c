import type { ChatFunctionTool, ChatRequestBody } from '@gateway/contracts';
import { ProviderError } from '../../provider.types';
import { MAX_PARALLEL_TOOL_CALLS, planToolUse, toolCallGrammar } from './tool-choice';

const weather: ChatFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const add: ChatFunctionTool = {
  type: 'function',
  function: {
    name: 'add',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  },
};

const question: ChatRequestBody['messages'] = [{ role: 'user', content: 'What is the weather in Paris?' }];
const afterResult: ChatRequestBody['messages'] = [
  ...question,
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": 21}' },
];

describe('planToolUse', () => {
  it('answers in text when no tools are offered, or tool_choice is none', () => {
    expect(planToolUse({ messages: question })).toEqual({ kind: 'text' });
    expect(planToolUse({ messages: question, tools: [weather], tool_choice: 'none' })).toEqual({ kind: 'text' });
  });

  it('auto: calls a tool when the last message is not a tool result, answers in text after one', () => {
    expect(planToolUse({ messages: question, tools: [weather, add] })).toMatchObject({
      kind: 'calls',
      tools: [{ name: 'get_weather' }, { name: 'add' }],
      maxCalls: MAX_PARALLEL_TOOL_CALLS,
      legacy: false,
    });
    expect(planToolUse({ messages: afterResult, tools: [weather, add], tool_choice: 'auto' })).toEqual({
      kind: 'text',
    });
  });

  it('required: calls a tool even after a tool result', () => {
    expect(planToolUse({ messages: afterResult, tools: [weather], tool_choice: 'required' })).toMatchObject({
      kind: 'calls',
    });
  });

  it('a named tool: exactly one call of it', () => {
    expect(
      planToolUse({
        messages: question,
        tools: [weather, add],
        tool_choice: { type: 'function', function: { name: 'add' } },
      }),
    ).toMatchObject({ kind: 'calls', tools: [{ name: 'add' }], maxCalls: 1 });
  });

  it('parallel_tool_calls false: at most one call', () => {
    expect(planToolUse({ messages: question, tools: [weather], parallel_tool_calls: false })).toMatchObject({
      maxCalls: 1,
    });
  });

  it('allowed_tools: only the tools it lists', () => {
    const plan = planToolUse({
      messages: question,
      tools: [weather, add],
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'add' } }] },
      },
    });
    expect(plan).toMatchObject({ kind: 'calls', tools: [{ name: 'add' }] });
  });

  it('the legacy functions: one call, answered as function_call', () => {
    const plan = planToolUse({
      messages: question,
      functions: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
    });
    expect(plan).toMatchObject({
      kind: 'calls',
      legacy: true,
      maxCalls: 1,
      tools: [{ at: 'functions[0].parameters' }],
    });
    expect(
      planToolUse({
        messages: [...question, { role: 'function', name: 'get_weather', content: '21' }],
        functions: [{ name: 'get_weather' }],
      }),
    ).toEqual({
      kind: 'text',
    });
  });

  it.each([
    [{ tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } }, /tool_choice names nope/],
    [{ tool_choice: 'required' }, /no tools are given/],
    [{ tools: [weather], functions: [{ name: 'f' }] }, /either tools or the deprecated functions/],
  ] as [Partial<ChatRequestBody>, RegExp][])('refuses %j as the request’s fault', (fields, message) => {
    const attempt = () => planToolUse({ messages: question, ...fields });
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(expect.objectContaining({ failure: 'request' }) as ProviderError);
  });
});

describe('toolCallGrammar', () => {
  it('is a list of calls, each a tool’s name and its arguments', () => {
    const plan = planToolUse({ messages: question, tools: [weather, add], parallel_tool_calls: false });
    if (plan.kind !== 'calls') throw new Error('expected calls');
    expect(toolCallGrammar(plan)).toEqual({
      type: 'json_schema',
      schema: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: {
          oneOf: [
            {
              type: 'object',
              properties: {
                name: { const: 'get_weather' },
                arguments: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false },
              },
            },
            {
              type: 'object',
              properties: {
                name: { const: 'add' },
                arguments: {
                  type: 'object',
                  properties: { a: { type: 'number' }, b: { type: 'number' } },
                  additionalProperties: false,
                },
              },
            },
          ],
        },
      },
    });
  });

  it('refuses parameters it cannot enforce, naming where they are', () => {
    const strict: ChatFunctionTool = {
      type: 'function',
      function: {
        name: 'f',
        parameters: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]+$' } } },
      },
    };
    const plan = planToolUse({ messages: question, tools: [weather, strict], tool_choice: 'required' });
    if (plan.kind !== 'calls') throw new Error('expected calls');
    expect(() => toolCallGrammar(plan)).toThrow(/^tools\[1\]\.function\.parameters\.properties\.code\.pattern /);
  });
});
