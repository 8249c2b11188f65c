import { GatewayError } from '@gateway/common';
import { ChunkStreams, StreamEntry } from '@gateway/redis';

/** What a streamed task's producer is given. */
export interface TaskStreamSink {
  append: (entry: StreamEntry) => Promise<void>;
  /** Aborts once an append finds that the client went away. */
  stop: AbortSignal;
  /** The route about to be tried (TaskTrace.onRoute): the first chunk names the last one told, which relays it. */
  onRoute: (route: { key: string }) => void;
}

/**
 * Runs a streamed task into its Redis Stream (ChunkStreams; docs/architecture.md, chat streaming): `produce` appends
 * its entries. The stream then ends with a `done` entry, or with the error, which is rethrown so TaskRunner settles
 * the task as for any failure.
 */
export async function intoTaskStream<T>(
  streams: ChunkStreams,
  taskId: string,
  produce: (sink: TaskStreamSink) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  let route: string | undefined;
  let named = false;
  const append = async (entry: StreamEntry) => {
    const first = !named && 'chunk' in entry && route !== undefined;
    if (first) named = true;
    const { cancelled } = await streams.append(taskId, first ? { ...entry, route } : entry);
    if (cancelled) stop.abort();
  };
  const onRoute = (tried: { key: string }) => {
    route = tried.key;
  };
  try {
    const produced = await produce({ append, stop: stop.signal, onRoute });
    await streams.append(taskId, { done: true });
    return produced;
  } catch (error) {
    const failure =
      error instanceof GatewayError ? error : new GatewayError('InternalError', 'the stream failed inside the gateway');
    await streams.append(taskId, { error: failure.toJSON() }).catch(() => undefined);
    throw error;
  }
}
