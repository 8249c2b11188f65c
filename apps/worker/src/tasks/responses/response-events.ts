import {
  outputItemId,
  ResponseObject,
  ResponsesOutputContent,
  ResponsesOutputFunctionCall,
  ResponsesOutputItem,
  ResponsesOutputMessage,
} from '@gateway/contracts';
import type { ChatAnswer, ChatChunk } from '@gateway/providers';
import type { StreamEntry } from '@gateway/redis';
import { ResponseEventWriter } from './response-event-writer';
import { endingOf, finalResponse, itemStatusOf, ResponsesTask } from './response-object';

type ToolCallDelta = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

/** An output item being streamed, and where it sits. */
interface OpenItem {
  item: ResponsesOutputItem;
  outputIndex: number;
  /** A function call's index among the chat answer's tool calls. */
  toolCallIndex?: number;
}

/**
 * Turns a streamed chat completion into the Responses API's event sequence (docs/architecture.md, chat streaming):
 * `response.created` and `response.in_progress`, then per output item `output_item.added`, its content part, its
 * deltas and their `done` events, `output_item.done`, and last `response.completed` (or `response.incomplete`) with
 * the whole response, which is also the task's result. Each event is one named stream entry with its
 * `sequence_number`. Items are streamed one after the other, as OpenAI does: a new item closes the one before.
 *
 * The opening events wait for the first delta, so a request that fails before producing anything still gets its
 * HTTP error rather than a stream that starts and breaks.
 */
export class ResponseEventStream {
  private readonly items: OpenItem[] = [];
  private current?: OpenItem;
  private readonly events: ResponseEventWriter;

  constructor(
    private readonly job: ResponsesTask,
    append: (entry: StreamEntry) => Promise<void>,
  ) {
    this.events = new ResponseEventWriter(job, append);
  }

  /**
   * One chat chunk: the first choice's text, refusal and tool-call deltas become events. Answers whether any event
   * went out (a chunk with only the role sends none).
   */
  async add(chunk: ChatChunk): Promise<boolean> {
    const before = this.events.sent;
    const delta = chunk.choices?.find((choice) => (choice.index ?? 0) === 0)?.delta;
    if (!delta) return false;
    if (typeof delta.content === 'string' && delta.content) await this.text('output_text', delta.content);
    if (typeof delta.refusal === 'string' && delta.refusal) await this.text('refusal', delta.refusal);
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls as ToolCallDelta[]) await this.toolCall(call);
    return this.events.sent > before;
  }

  /** The stream ended: closes what is open and sends the whole response, which it answers. */
  async finish(answer: ChatAnswer): Promise<ResponseObject> {
    const ending = endingOf(answer.choices[0]?.finish_reason);
    // Nothing was said: an empty message, as the answer without streaming has.
    if (this.items.length === 0) await this.openMessage('output_text');
    await this.close(itemStatusOf(ending));
    const response = finalResponse(
      this.job,
      answer,
      this.items.map(({ item }) => item),
    );
    await this.events.close(response);
    return response;
  }

  private async text(kind: 'output_text' | 'refusal', delta: string): Promise<void> {
    const open = this.current?.item.type === 'message' ? this.current : await this.openMessage(kind);
    const message = open.item as ResponsesOutputMessage;
    let contentIndex = message.content.length - 1;
    if (message.content[contentIndex]?.type !== kind) {
      contentIndex = await this.openPart(open, kind);
    }
    const part = message.content[contentIndex];
    if (part.type === 'output_text') part.text += delta;
    else part.refusal += delta;
    const at = { item_id: message.id, output_index: open.outputIndex, content_index: contentIndex };
    if (kind === 'output_text') await this.events.emit('response.output_text.delta', { ...at, delta, logprobs: [] });
    else await this.events.emit('response.refusal.delta', { ...at, delta });
  }

  private async toolCall(delta: ToolCallDelta): Promise<void> {
    const index = delta.index ?? 0;
    let open = this.items.find((item) => item.toolCallIndex === index);
    if (!open) {
      const outputIndex = this.items.length;
      open = await this.openItem(
        {
          type: 'function_call',
          id: outputItemId(this.job.taskId, 'fc', outputIndex),
          call_id: delta.id ?? '',
          name: delta.function?.name ?? '',
          arguments: '',
          status: 'in_progress',
        },
        index,
      );
    }
    const call = open.item as ResponsesOutputFunctionCall;
    const args = delta.function?.arguments;
    if (!args) return;
    call.arguments += args;
    // A late delta of a call already closed still counts in the final response, but is not streamed again.
    if (open === this.current)
      await this.events.emit('response.function_call_arguments.delta', {
        item_id: call.id,
        output_index: open.outputIndex,
        delta: args,
      });
  }

  private async openMessage(kind: 'output_text' | 'refusal'): Promise<OpenItem> {
    const open = await this.openItem({
      type: 'message',
      id: outputItemId(this.job.taskId, 'msg', this.items.length),
      status: 'in_progress',
      role: 'assistant',
      content: [],
    });
    await this.openPart(open, kind);
    return open;
  }

  private async openPart(open: OpenItem, kind: 'output_text' | 'refusal'): Promise<number> {
    const message = open.item as ResponsesOutputMessage;
    const part: ResponsesOutputContent =
      kind === 'output_text'
        ? { type: 'output_text', text: '', annotations: [], logprobs: [] }
        : { type: 'refusal', refusal: '' };
    message.content.push(part);
    const contentIndex = message.content.length - 1;
    await this.events.emit('response.content_part.added', {
      item_id: message.id,
      output_index: open.outputIndex,
      content_index: contentIndex,
      part,
    });
    return contentIndex;
  }

  private async openItem(item: ResponsesOutputItem, toolCallIndex?: number): Promise<OpenItem> {
    await this.events.open();
    await this.close('completed');
    const open: OpenItem = { item, outputIndex: this.items.length, toolCallIndex };
    this.items.push(open);
    this.current = open;
    await this.events.emit('response.output_item.added', { output_index: open.outputIndex, item });
    return open;
  }

  /** Ends the item being streamed: its parts' and arguments' `done` events, then `output_item.done`. */
  private async close(status: 'completed' | 'incomplete'): Promise<void> {
    const open = this.current;
    if (!open) return;
    this.current = undefined;
    const { item, outputIndex } = open;
    item.status = status;
    if (item.type === 'message') {
      for (const [contentIndex, part] of item.content.entries()) {
        const at = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
        if (part.type === 'output_text')
          await this.events.emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
        else await this.events.emit('response.refusal.done', { ...at, refusal: part.refusal });
        await this.events.emit('response.content_part.done', { ...at, part });
      }
    } else {
      await this.events.emit('response.function_call_arguments.done', {
        item_id: item.id,
        output_index: outputIndex,
        name: item.name,
        arguments: item.arguments,
      });
    }
    await this.events.emit('response.output_item.done', { output_index: outputIndex, item });
  }
}
