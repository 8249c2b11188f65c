/** New /v1 requests started per turn of the event loop when they arrive in a burst. */
const STARTS_PER_TURN = 16;

/**
 * Spreads a burst of new requests over turns of the event loop. A /v1 request costs the api about half a millisecond
 * of synchronous work (body parse, key check, validation, job payload) before its first wait; a burst of a hundred
 * new connections read in one turn would keep /health/live and every reply waiting for all of them (bench/README.md,
 * "Held connections"). Up to STARTS_PER_TURN start at once; the rest start in arrival order, that many per later
 * turn. A request that finds no burst starts at once, without a hop.
 */
export class BurstPacer {
  private startedThisTurn = 0;
  private readonly waiting: (() => void)[] = [];
  private turnEndScheduled = false;

  constructor(private readonly perTurn = STARTS_PER_TURN) {}

  /** Runs `start` now, or in a later turn behind the requests that came first. */
  run(start: () => void): void {
    this.scheduleTurnEnd();
    if (this.waiting.length === 0 && this.startedThisTurn < this.perTurn) {
      this.startedThisTurn++;
      start();
    } else {
      this.waiting.push(start);
    }
  }

  get deferred(): number {
    return this.waiting.length;
  }

  private scheduleTurnEnd(): void {
    if (this.turnEndScheduled) return;
    this.turnEndScheduled = true;
    setImmediate(() => this.nextTurn());
  }

  /** The check phase, after this turn's I/O: a new budget, spent first on the longest waiting. */
  private nextTurn(): void {
    this.turnEndScheduled = false;
    this.startedThisTurn = 0;
    const starts = this.waiting.splice(0, this.perTurn);
    if (this.waiting.length > 0 || starts.length > 0) this.scheduleTurnEnd();
    for (const start of starts) {
      this.startedThisTurn++;
      start();
    }
  }
}
