import { ChatStreamAccumulator } from './chat-stream-accumulator';

const chunk = (delta: Record<string, unknown>, finish: string | null = null, index = 0) => ({
  object: 'chat.completion.chunk',
  choices: [{ index, delta, finish_reason: finish }],
});

describe('ChatStreamAccumulator', () => {
  it('merges streamed tool calls by index, as OpenAI streams them', () => {
    const whole = new ChatStreamAccumulator();
    whole.add(chunk({ role: 'assistant', content: null }));
    whole.add(
      chunk({
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }],
      }),
    );
    whole.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }));
    whole.add(
      chunk({
        tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } }],
      }),
    );
    whole.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }));
    whole.add(chunk({}, 'tool_calls'));
    whole.add({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
    });
    expect(whole.result()).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } },
          ],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ]);
    expect(whole.usage?.completion_tokens).toBe(9);
  });

  it('keeps n choices apart and their logprobs in order', () => {
    const whole = new ChatStreamAccumulator();
    const logprob = (token: string) => ({ content: [{ token, logprob: -0.1, bytes: null, top_logprobs: [] }] });
    whole.add({ choices: [{ index: 1, delta: { content: 'B' }, finish_reason: null, logprobs: logprob('B') }] });
    whole.add({ choices: [{ index: 0, delta: { content: 'A' }, finish_reason: null, logprobs: logprob('A') }] });
    whole.add({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: 'stop', logprobs: logprob('a') }] });
    whole.add(chunk({}, 'length', 1));
    const [first, second] = whole.result();
    expect(first.message.content).toBe('Aa');
    expect(first.logprobs?.content?.map((entry) => entry.token)).toEqual(['A', 'a']);
    expect(second).toMatchObject({ index: 1, message: { content: 'B' }, finish_reason: 'length' });
  });

  it('marks a stream the client left as cancelled, with what was generated', () => {
    const whole = new ChatStreamAccumulator();
    whole.add(chunk({ content: 'Hel' }));
    expect(whole.result(true)[0]).toMatchObject({ message: { content: 'Hel' }, finish_reason: 'cancelled' });
    expect(whole.text).toBe('Hel');
  });
});
