import { toEnvelope } from '@gateway/common';
import { SseDialect } from '../stream-relay.service';

/**
 * The Responses API's Server-Sent Events: named events, no `[DONE]` after the last one (`response.completed`), and
 * an `error` event for a stream that breaks after it started. The error carries OpenAI's flat fields and the
 * gateway's envelope (`error`, `request_id`) too: the openai SDK throws on an event with `error`, the AI SDK reads
 * either form.
 */
export const RESPONSES_SSE: SseDialect = {
  errorEvent: (error, requestId, sequence) => {
    const envelope = toEnvelope(error, requestId);
    const { code, message, param } = envelope.error;
    const event = { type: 'error', code, message, param, sequence_number: sequence, ...envelope };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  },
};
