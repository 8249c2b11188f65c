import type { ResponseObject } from '@gateway/contracts';
import type { StreamEntry } from '@gateway/redis';
import { responseObject, ResponsesTask } from './response-object';

/**
 * Writes a responses task's events to its stream (ChunkStreams): each a named entry numbered from 0, opened once by
 * `response.created` and `response.in_progress`, and ended by the whole response. Shared by the translated stream
 * (response-events.ts) and the relayed one (passed-through-events.ts), so both number and frame events alike.
 */
export class ResponseEventWriter {
  private sequence = 0;
  private opened = false;

  /** How many events have been written so far. */
  get sent(): number {
    return this.sequence;
  }

  constructor(
    private readonly job: ResponsesTask,
    private readonly append: (entry: StreamEntry) => Promise<void>,
  ) {}

  /** `response.created` and `response.in_progress`, once, before the first item. */
  async open(): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    const response = responseObject(this.job, { status: 'in_progress' });
    await this.emit('response.created', { response });
    await this.emit('response.in_progress', { response });
  }

  /** The last event, with the whole response; none for a stream its client left (status `cancelled`). */
  async close(response: ResponseObject): Promise<void> {
    if (response.status !== 'completed' && response.status !== 'incomplete') return;
    await this.open();
    await this.emit(`response.${response.status}`, { response });
  }

  /** Sent at once: the objects passed may still be changed by later deltas. */
  async emit(type: string, fields: Record<string, unknown>): Promise<void> {
    const event = { type, sequence_number: this.sequence++, ...fields };
    await this.append({ chunk: JSON.stringify(event), event: type });
  }
}
