import type { ResolvedRoute } from '@gateway/catalog';
import type { ChatRequestBody } from '@gateway/contracts';
import { chatRequestFor } from './chat-dialects';

const route = (dialect?: 'dashscope'): ResolvedRoute => ({
  provider: 'openai-compatible',
  upstream: 'u',
  model: 'upstream-model',
  key: 'u:upstream-model',
  ...(dialect ? { dialect } : {}),
});

const request: ChatRequestBody = {
  messages: [
    { role: 'developer', content: 'be brief' },
    { role: 'user', content: 'hi' },
  ],
  max_completion_tokens: 30,
  tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
  tool_choice: 'auto',
  store: true,
  metadata: { team: 'a' },
  prompt_cache_key: 'k',
  user: 'u-1',
};

describe('chatRequestFor', () => {
  it('does not send tool settings without tools, which OpenAI refuses', () => {
    const alone: ChatRequestBody = {
      messages: [{ role: 'user', content: 'hi' }],
      parallel_tool_calls: true,
      tool_choice: 'none',
    };
    expect(chatRequestFor(route(), alone)).toEqual({ messages: alone.messages, model: 'upstream-model' });
  });

  it('leaves out the OpenAI-only fields of an assistant turn for DashScope', () => {
    const answered: ChatRequestBody = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', refusal: null, annotations: [] },
      ],
    };
    expect(chatRequestFor(route('dashscope'), answered).messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('sends an OpenAI upstream the request as the caller sent it, with its own model id', () => {
    expect(chatRequestFor(route(), request)).toEqual({ ...request, model: 'upstream-model' });
  });

  it("translates for DashScope's compatible mode and drops what it does not take", () => {
    expect(chatRequestFor(route('dashscope'), request)).toEqual({
      model: 'upstream-model',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 30,
      tools: request.tools,
      tool_choice: 'auto',
    });
  });
});
