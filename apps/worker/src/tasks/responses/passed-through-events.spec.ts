import type { ResponsesAnswer, ResponsesStreamEvent } from '@gateway/providers';
import type { StreamEntry } from '@gateway/redis';
import { passedThroughResponse } from './passed-through';
import { PassedThroughEventStream } from './passed-through-events';
import type { ResponsesTask } from './response-object';

const job = {
  taskId: 'task_0123456789abcdefghijKL',
  model: 'x-chat',
  createdAt: 1_795_300_000_000,
  request: { messages: [{ role: 'user', content: 'hi' }] },
  features: [],
  responses: { echo: { store: true, metadata: { ticket: '7' }, previous_response_id: null } },
} as unknown as ResponsesTask;

const reasoning = { id: 'rs_up', type: 'reasoning', summary: [] };
const message = (status: string, text: string) => ({
  id: 'msg_up',
  type: 'message',
  status,
  role: 'assistant',
  content: text === '' ? [] : [{ type: 'output_text', text, annotations: [] }],
});
const call = (status: string, args: string) => ({
  id: 'fc_up',
  type: 'function_call',
  status,
  call_id: 'call_up',
  name: 'weather',
  arguments: args,
});

/** What an upstream streams for a reasoning item, a message and a function call, as OpenAI numbers them. */
const upstreamEvents: ResponsesStreamEvent[] = [
  { type: 'response.created', response: { id: 'resp_up', status: 'in_progress', output: [] } },
  { type: 'response.in_progress', response: { id: 'resp_up', status: 'in_progress', output: [] } },
  { type: 'response.output_item.added', output_index: 0, item: reasoning },
  { type: 'response.reasoning_summary_text.delta', output_index: 0, item_id: 'rs_up', delta: 'thinking' },
  { type: 'response.output_item.done', output_index: 0, item: reasoning },
  { type: 'response.output_item.added', output_index: 1, item: message('in_progress', '') },
  {
    type: 'response.content_part.added',
    output_index: 1,
    item_id: 'msg_up',
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  },
  {
    type: 'response.output_text.delta',
    output_index: 1,
    item_id: 'msg_up',
    content_index: 0,
    delta: 'Sunny',
    logprobs: [],
    obfuscation: 'ab',
  },
  { type: 'response.output_text.done', output_index: 1, item_id: 'msg_up', content_index: 0, text: 'Sunny' },
  { type: 'response.output_item.done', output_index: 1, item: message('completed', 'Sunny') },
  { type: 'response.output_item.added', output_index: 2, item: call('in_progress', '') },
  { type: 'response.function_call_arguments.delta', output_index: 2, item_id: 'fc_up', delta: '{}' },
  { type: 'response.output_item.done', output_index: 2, item: call('completed', '{}') },
  { type: 'response.completed', response: { id: 'resp_up', status: 'completed' } },
].map((event, i) => ({ ...event, sequence_number: i + 40 }));

const answer: ResponsesAnswer = {
  response: {
    status: 'completed',
    output: [reasoning, message('completed', 'Sunny'), call('completed', '{}')],
    usage: { input_tokens: 9, output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } },
  },
  promptTokens: 9,
  completionTokens: 4,
};

async function relay(events: ResponsesStreamEvent[], whole: ResponsesAnswer) {
  const entries: StreamEntry[] = [];
  const stream = new PassedThroughEventStream(job, async (entry) => {
    entries.push(entry);
  });
  for (const event of events) await stream.add(event);
  const sentBeforeEnd = entries.length;
  const response = await stream.finish(whole);
  const sent = entries.map((entry) => {
    if (!('chunk' in entry)) throw new Error('only chunks expected');
    const event = JSON.parse(entry.chunk) as ResponsesStreamEvent & Record<string, unknown>;
    expect(entry.event).toBe(event.type);
    return event;
  });
  return { sent, sentBeforeEnd, response };
}

describe('an upstream’s Responses stream relayed as the task’s own', () => {
  it('relays the events in order, numbered from 0, with the gateway’s ids, leaving out the reasoning item', async () => {
    const { sent, response } = await relay(upstreamEvents, answer);
    expect(sent.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(sent.map((event) => event.sequence_number)).toEqual(sent.map((_, i) => i));
    expect(sent[0].response).toMatchObject({ id: 'resp_0123456789abcdefghijKL', model: 'x-chat', output: [] });
    expect(sent[2]).toMatchObject({ output_index: 0, item: { id: 'msg_0123456789abcdefghijKL_0', type: 'message' } });
    // The upstream's own fields (obfuscation, logprobs) go on as it sent them.
    expect(sent[4]).toEqual({
      type: 'response.output_text.delta',
      sequence_number: 4,
      output_index: 0,
      item_id: 'msg_0123456789abcdefghijKL_0',
      content_index: 0,
      delta: 'Sunny',
      logprobs: [],
      obfuscation: 'ab',
    });
    expect(sent[8]).toMatchObject({ output_index: 1, item_id: 'fc_0123456789abcdefghijKL_1' });
    expect(sent[10].response).toEqual(response);
    expect(response).toEqual(passedThroughResponse(job, answer));
  });

  it('answers the upstream’s output and usage with the task’s id, model and echoed fields', () => {
    const response = passedThroughResponse(job, answer);
    expect(response).toMatchObject({
      id: 'resp_0123456789abcdefghijKL',
      status: 'completed',
      model: 'x-chat',
      store: true,
      metadata: { ticket: '7' },
      output: [
        { ...message('completed', 'Sunny'), id: 'msg_0123456789abcdefghijKL_0' },
        { ...call('completed', '{}'), id: 'fc_0123456789abcdefghijKL_1' },
      ],
      usage: {
        input_tokens: 9,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 13,
      },
    });
  });

  it('sends nothing before the first item, and says so, so an early failure can still fall back or be an HTTP error', async () => {
    const stream = new PassedThroughEventStream(job, async () => {
      throw new Error('nothing should be appended');
    });
    expect(await stream.add(upstreamEvents[0])).toBe(false);
    expect(await stream.add(upstreamEvents[1])).toBe(false);
    const { sentBeforeEnd } = await relay(upstreamEvents.slice(0, 5), answer);
    // The reasoning item's events are left out too.
    expect(sentBeforeEnd).toBe(0);
  });

  it('ends a response cut by its token limit with response.incomplete', async () => {
    const cut: ResponsesAnswer = {
      ...answer,
      response: {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [message('incomplete', 'Sun')],
      },
    };
    const { sent, response } = await relay([], cut);
    expect(sent.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.incomplete',
    ]);
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });
});
