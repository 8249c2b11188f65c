import { setTimeout as sleep } from 'node:timers/promises';
import { AppConfig, GatewayError, LOGGER, toEnvelope } from '@gateway/common';
import { ChunkStreams, StreamEntry } from '@gateway/redis';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'pino';

/**
 * How a stream's events are written. OpenAI's chat completions send unnamed `data:` events, end with `data: [DONE]`
 * and send a late error as its envelope; the Responses API names its events (`event:` lines, from the entries) and
 * ends with its last one (`responses-sse.ts`).
 */
export interface SseDialect {
  /** Written after the last event, if anything. */
  ending?: string;
  /** The event that ends a stream broken after it started; `sequence` is the number of events sent before it. */
  errorEvent(error: GatewayError, requestId: string, sequence: number): string;
}

export const CHAT_SSE: SseDialect = {
  ending: 'data: [DONE]\n\n',
  errorEvent: (error, requestId) => `data: ${JSON.stringify(toEnvelope(error, requestId))}\n\n`,
};

/**
 * Relays a task's Redis Stream to its client as Server-Sent Events, in the endpoint's SseDialect (chat: OpenAI's
 * `data: {chunk}` events, then `data: [DONE]`). Until the first entry the answer is still an ordinary HTTP one, so a
 * request that fails before producing anything gets its proper status and error envelope; after that, an error ends
 * the stream with an error event. A client that disconnects cancels the task, which stops generating at its next
 * chunk.
 */
@Injectable()
export class StreamRelay {
  constructor(
    private readonly config: AppConfig,
    private readonly streams: ChunkStreams,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async relay(
    taskId: string,
    http: { request: FastifyRequest; reply: FastifyReply },
    dialect: SseDialect = CHAT_SSE,
  ): Promise<void> {
    const { reply } = http;
    const reader = new AbortController();
    let finished = false;
    const onClose = () => {
      if (finished) return;
      reader.abort();
      void this.streams
        .cancel(taskId)
        .catch((error) => this.logger.warn({ taskId, err: (error as Error).message }, 'could not cancel stream'));
    };
    reply.raw.once('close', onClose);
    try {
      const entries = this.streams.read(taskId, reader.signal);
      const first = await this.firstEntry(entries, taskId);
      if (!first) return;
      if ('error' in first) throw GatewayError.from(first.error);
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        // Proxies such as nginx would otherwise buffer the events.
        'x-accel-buffering': 'no',
        'x-request-id': http.request.id,
        'x-task-id': taskId,
        ...('route' in first && first.route ? { 'x-gateway-route': first.route } : {}),
      });
      let sent = 0;
      try {
        for (
          let entry: StreamEntry | undefined = first;
          entry;
          entry = (await entries.next()).value as StreamEntry | undefined
        ) {
          if ('chunk' in entry) {
            reply.raw.write(
              entry.event ? `event: ${entry.event}\ndata: ${entry.chunk}\n\n` : `data: ${entry.chunk}\n\n`,
            );
            sent++;
          } else if ('done' in entry) {
            if (dialect.ending) reply.raw.write(dialect.ending);
          } else reply.raw.write(dialect.errorEvent(GatewayError.from(entry.error), http.request.id, sent));
          if (!('chunk' in entry)) break;
        }
      } catch (error) {
        // The response is already under way: a broken read ends it with an error event (nothing to tell a client that left).
        if (!reader.signal.aborted) {
          this.logger.warn({ taskId, err: (error as Error).message }, 'stream relay failed');
          const interrupted = new GatewayError('InternalError', 'the stream was interrupted');
          reply.raw.write(dialect.errorEvent(interrupted, http.request.id, sent));
        }
      }
      finished = true;
      reply.raw.end();
    } finally {
      finished = true;
      reply.raw.removeListener('close', onClose);
      reader.abort();
    }
  }

  /** The first entry, or 504 once SYNC_TIMEOUT_MS passes without one (no worker took the task). */
  private async firstEntry(entries: AsyncGenerator<StreamEntry>, taskId: string): Promise<StreamEntry | undefined> {
    const timer = new AbortController();
    // Aborted once the race is decided, so the timer never outlives it (its rejection then has nobody waiting).
    const timeout = sleep(this.config.SYNC_TIMEOUT_MS, 'timeout' as const, { signal: timer.signal }).catch(
      () => undefined,
    );
    const first = await Promise.race([entries.next(), timeout]).finally(() => timer.abort());
    if (!first || first === 'timeout') {
      throw new GatewayError(
        'Timeout',
        `the stream did not start within ${this.config.SYNC_TIMEOUT_MS} ms; fetch the result with GET /v1/tasks/${taskId}`,
        {
          details: { task_id: taskId },
        },
      );
    }
    return first.value as StreamEntry | undefined;
  }
}
