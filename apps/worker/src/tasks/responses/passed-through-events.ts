import { outputItemId, ResponseObject } from '@gateway/contracts';
import type { ResponsesAnswer, ResponsesStreamEvent } from '@gateway/providers';
import type { StreamEntry } from '@gateway/redis';
import { idPrefixOf, passedThroughResponse } from './passed-through';
import { ResponseEventWriter } from './response-event-writer';
import { responseObject, ResponsesTask } from './response-object';

/** The upstream's events that the writer sends itself, with the task's response object. */
const FRAMING_EVENTS = new Set([
  'response.created',
  'response.in_progress',
  'response.queued',
  'response.completed',
  'response.incomplete',
]);

/**
 * Relays an upstream's streamed response (a route with the Responses endpoint) as the task's own events, in the
 * upstream's order and with its fields, each with the gateway's `sequence_number`, and its `output_index` and
 * `item_id` as the gateway numbers the items (passed-through.ts). Events of items the gateway leaves out (reasoning,
 * …) are not sent. As for a translated stream (response-events.ts), the opening events wait for the first item, so a
 * failure before it is still an HTTP error, and the last event carries the whole response, the task's result.
 */
export class PassedThroughEventStream {
  private readonly events: ResponseEventWriter;
  /** The upstream's output index of each item kept → its index and id here. */
  private readonly items = new Map<number, { index: number; id: string }>();

  constructor(
    private readonly job: ResponsesTask,
    append: (entry: StreamEntry) => Promise<void>,
  ) {
    this.events = new ResponseEventWriter(job, append);
  }

  /** One upstream event; answers whether it went out (the framing and left-out items' events do not). */
  async add(event: ResponsesStreamEvent): Promise<boolean> {
    if (FRAMING_EVENTS.has(event.type)) return false;
    const { type, sequence_number: _upstreamSequence, ...fields } = event;
    if (typeof event.output_index === 'number') {
      const prefix = type === 'response.output_item.added' ? idPrefixOf(event.item) : undefined;
      if (prefix) {
        const index = this.items.size;
        this.items.set(event.output_index, { index, id: outputItemId(this.job.taskId, prefix, index) });
      }
      const ours = this.items.get(event.output_index);
      if (!ours) return false;
      fields.output_index = ours.index;
      if ('item_id' in fields) fields.item_id = ours.id;
      if (typeof fields.item === 'object' && fields.item !== null) fields.item = { ...fields.item, id: ours.id };
    }
    if ('response' in fields) fields.response = responseObject(this.job, { status: 'in_progress' });
    await this.events.open();
    await this.events.emit(type, fields);
    return true;
  }

  /** The stream ended: sends the whole response, which it answers. */
  async finish(answer: ResponsesAnswer): Promise<ResponseObject> {
    const response = passedThroughResponse(this.job, answer);
    await this.events.close(response);
    return response;
  }
}
