import { GatewayError } from '@gateway/common';
import { Stream } from 'openai/core/streaming';
import { RESPONSES_SSE } from './responses-sse';

describe('the Responses SSE dialect', () => {
  const broken = new GatewayError('UpstreamError', 'the upstream stream broke off: reset');

  it('ends a broken stream with an error event in OpenAI’s flat form, numbered after the events sent', () => {
    const text = RESPONSES_SSE.errorEvent(broken, 'req_1', 7);
    const [eventLine, dataLine] = text.trimEnd().split('\n');
    expect(eventLine).toBe('event: error');
    expect(JSON.parse(dataLine.slice('data: '.length))).toMatchObject({
      type: 'error',
      code: 'UpstreamError',
      message: 'the upstream stream broke off: reset',
      param: null,
      sequence_number: 7,
      request_id: 'req_1',
    });
  });

  it('makes the openai SDK throw on it rather than end quietly', async () => {
    const body = `event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n${RESPONSES_SSE.errorEvent(broken, 'req_1', 1)}`;
    const stream = Stream.fromSSEResponse(new Response(body), new AbortController());
    const read = async () => {
      for await (const event of stream) void event;
    };
    await expect(read()).rejects.toThrow(/the upstream stream broke off/);
  });

  it('sends no [DONE] after the last event, as OpenAI does not', () => {
    expect(RESPONSES_SSE.ending).toBeUndefined();
  });
});
