import { GatewayError } from '@gateway/common';
import { ChunkStreams, StreamEntry } from '@gateway/queue';

/**
 * Runs a streamed task into its Redis Stream (ChunkStreams; docs/architecture.md, chat streaming): `produce` appends
 * its entries, and `stop` aborts once an append finds that the client went away. The stream then ends with a `done`
 * entry, or with the error, which is rethrown so TaskRunner settles the task as for any failure.
 */
export async function intoTaskStream<T>(
  streams: ChunkStreams,
  taskId: string,
  produce: (append: (entry: StreamEntry) => Promise<void>, stop: AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const append = async (entry: StreamEntry) => {
    const { cancelled } = await streams.append(taskId, entry);
    if (cancelled) stop.abort();
  };
  try {
    const produced = await produce(append, stop.signal);
    await streams.append(taskId, { done: true });
    return produced;
  } catch (error) {
    const failure =
      error instanceof GatewayError ? error : new GatewayError('InternalError', 'the stream failed inside the gateway');
    await streams.append(taskId, { error: failure.toJSON() }).catch(() => undefined);
    throw error;
  }
}
