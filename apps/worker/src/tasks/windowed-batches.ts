/**
 * Items gathered for `windowMs` after the first, or until `maxBatch`, then handed to `write` together: what a
 * delivering worker writes after its answers (task records, kept bodies). `write` deals with its own failures.
 */
export class WindowedBatches<T> {
  private batch: T[] = [];
  private timer?: NodeJS.Timeout;
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly windowMs: number,
    private readonly maxBatch: number,
  ) {}

  add(item: T): void {
    this.batch.push(item);
    if (this.batch.length >= this.maxBatch) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  /** Writes what is gathered now and waits for every write in flight (shutdown). */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all(this.writing);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.batch;
    this.batch = [];
    if (items.length === 0) return;
    const writing = this.write(items).finally(() => this.writing.delete(writing));
    this.writing.add(writing);
  }
}
