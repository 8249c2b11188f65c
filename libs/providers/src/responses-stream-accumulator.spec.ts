import { ResponsesStreamAccumulator } from './responses-stream-accumulator';

describe('an upstream’s streamed response, put back together', () => {
  it('is the response its last event carries', () => {
    const whole = new ResponsesStreamAccumulator();
    const response = { status: 'completed', output: [{ type: 'message', content: [] }] };
    whole.add({ type: 'response.created', response: { status: 'in_progress', output: [] } });
    whole.add({ type: 'response.completed', response });
    expect(whole.finished).toEqual(response);
  });

  it('keeps the items so far, deltas applied, when the stream was stopped before its end', () => {
    const whole = new ResponsesStreamAccumulator();
    const events = [
      { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', content: [] } },
      {
        type: 'response.content_part.added',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '' },
      },
      { type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'Hel' },
      { type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'lo' },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', arguments: '' } },
      { type: 'response.function_call_arguments.delta', output_index: 1, delta: '{"a"' },
    ];
    for (const event of events) whole.add(event);
    expect(whole.finished).toBeUndefined();
    expect(whole.cancelled()).toEqual({
      id: 'resp_1',
      status: 'cancelled',
      output: [
        { type: 'message', content: [{ type: 'output_text', text: 'Hello' }] },
        { type: 'function_call', arguments: '{"a"' },
      ],
      incomplete_details: null,
      usage: null,
    });
  });
});
