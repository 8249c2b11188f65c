import type { ChatAnswer, ChatChunk } from '@gateway/providers';
import type { StreamEntry } from '@gateway/redis';
import { ResponseEventStream } from './response-events';
import { finalResponse, ResponsesTask } from './response-object';

const job = {
  taskId: 'task_0123456789abcdefghijKL',
  model: 'x-chat',
  createdAt: 1_795_300_000_000,
  request: { messages: [{ role: 'user', content: 'hi' }] },
  features: [],
  responses: {
    echo: {
      instructions: null,
      max_output_tokens: null,
      metadata: {},
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: true,
      temperature: null,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      truncation: 'disabled',
      user: null,
      safety_identifier: null,
      prompt_cache_key: null,
      service_tier: null,
    },
  },
} as unknown as ResponsesTask;

const textChunk = (content: string): ChatChunk => ({
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

function answer(choice: Partial<ChatAnswer['choices'][number]['message']>, finishReason = 'stop'): ChatAnswer {
  return {
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, ...choice },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    promptTokens: 5,
    completionTokens: 3,
  };
}

async function run(chunks: ChatChunk[], whole: ChatAnswer) {
  const entries: StreamEntry[] = [];
  const stream = new ResponseEventStream(job, async (entry) => {
    entries.push(entry);
  });
  for (const chunk of chunks) await stream.add(chunk);
  const response = await stream.finish(whole);
  const events = entries.map((entry) => {
    if (!('chunk' in entry)) throw new Error('only chunks expected');
    const event = JSON.parse(entry.chunk) as { type: string; sequence_number: number } & Record<string, unknown>;
    expect(entry.event).toBe(event.type);
    return event;
  });
  return { events, response };
}

describe('Responses stream events from a chat stream', () => {
  it('sends the documented sequence for a text answer, numbered from 0, ending with the whole response', async () => {
    const { events, response } = await run([textChunk('Hel'), textChunk('lo')], answer({ content: 'Hello' }));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].response).toMatchObject({ id: 'resp_0123456789abcdefghijKL', status: 'in_progress', output: [] });
    expect(events[4]).toMatchObject({ item_id: 'msg_0123456789abcdefghijKL_0', output_index: 0, delta: 'Hel' });
    expect(events[6]).toMatchObject({ text: 'Hello' });
    expect(events[9].response).toEqual(response);
    // The streamed answer is the one the same completion gives unstreamed.
    expect(response).toEqual(finalResponse(job, answer({ content: 'Hello' })));
  });

  it('streams a tool call as a function_call item with argument deltas, after the text it closes', async () => {
    const call = (delta: Record<string, unknown>): ChatChunk => ({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...delta }] }, finish_reason: null }],
    });
    const { events, response } = await run(
      [
        textChunk('Let me look.'),
        call({ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } }),
        call({ function: { arguments: '{"city":' } }),
        call({ function: { arguments: '"Paris"}' } }),
      ],
      answer(
        {
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        'tool_calls',
      ),
    );
    expect(events.map((event) => event.type).slice(5)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[8]).toMatchObject({
      output_index: 1,
      item: { type: 'function_call', id: 'fc_0123456789abcdefghijKL_1', call_id: 'call_1', name: 'weather' },
    });
    expect(events[11]).toMatchObject({ arguments: '{"city":"Paris"}' });
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'message', status: 'completed' }),
      {
        type: 'function_call',
        id: 'fc_0123456789abcdefghijKL_1',
        call_id: 'call_1',
        name: 'weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
    ]);
  });

  it('ends a completion cut by its token limit with response.incomplete', async () => {
    const { events, response } = await run([textChunk('One two')], answer({ content: 'One two' }, 'length'));
    expect(events[events.length - 1].type).toBe('response.incomplete');
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
    });
  });

  it('sends nothing before the first delta, so an early failure is still an HTTP error', async () => {
    const entries: StreamEntry[] = [];
    const stream = new ResponseEventStream(job, async (entry) => {
      entries.push(entry);
    });
    await stream.add({ choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
    expect(entries).toEqual([]);
  });
});
