/**
 * Runs `turn` every `intervalMs`, never two at once: a turn still running when the next is due is that turn. Stopping
 * waits for the turn in progress, so the worker's shutdown lets it finish before connections close.
 */
export class PeriodicTurns {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly intervalMs: number,
    private readonly turn: () => Promise<void>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private run(): Promise<void> {
    this.running ??= this.turn().finally(() => (this.running = undefined));
    return this.running;
  }
}
