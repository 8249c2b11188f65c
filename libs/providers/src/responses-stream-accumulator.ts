import type { ResponsesStreamEvent, UpstreamResponse } from './provider.types';

type Part = { type: string; text?: string; refusal?: string };
type Item = Record<string, unknown> & { content?: Part[]; arguments?: string };

/**
 * Follows an upstream's streamed response (its Responses endpoint) so the task can be answered whole: the response
 * its last event carries (`response.completed` or `response.incomplete`), or, for a stream stopped early because the
 * client left, the items so far with status `cancelled`, as a stopped chat stream is kept (ChatStreamAccumulator).
 */
export class ResponsesStreamAccumulator {
  /** The whole response, once the upstream sent its last event. */
  finished?: UpstreamResponse;
  private opening: Record<string, unknown> = {};
  private readonly items = new Map<number, Item>();

  add(event: ResponsesStreamEvent): void {
    const index = typeof event.output_index === 'number' ? event.output_index : undefined;
    const item = index === undefined ? undefined : this.items.get(index);
    const part = item?.content?.[event.content_index as number];
    const delta = typeof event.delta === 'string' ? event.delta : '';
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
        this.opening = (event.response as Record<string, unknown>) ?? {};
        return;
      case 'response.completed':
      case 'response.incomplete':
        this.finished = event.response as UpstreamResponse;
        return;
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (index !== undefined) this.items.set(index, structuredClone(event.item as Item));
        return;
      case 'response.content_part.added':
        if (item) (item.content ??= [])[event.content_index as number] = structuredClone(event.part as Part);
        return;
      case 'response.output_text.delta':
        if (part) part.text = (part.text ?? '') + delta;
        return;
      case 'response.refusal.delta':
        if (part) part.refusal = (part.refusal ?? '') + delta;
        return;
      case 'response.function_call_arguments.delta':
        if (item) item.arguments = (item.arguments ?? '') + delta;
    }
  }

  /** What a stream stopped before its end leaves: the items so far, in output order. */
  cancelled(): UpstreamResponse {
    const output = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    return { ...this.opening, status: 'cancelled', output, incomplete_details: null, usage: null };
  }
}
