import { LOGGER } from '@gateway/common';
import { PendingRecords } from '@gateway/queue';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';
import { PeriodicTurns } from './periodic-turns';
import { TaskRecorder } from './task-recorder.service';

/** How often a worker looks for records to write. */
const BACKLOG_INTERVAL_MS = 2_000;
/** Records claimed per look; the next look takes more. */
const CLAIM_LIMIT = 100;
/** A claimed record goes back to the others if its writer has not settled it by then (it died, or MongoDB hung). */
const CLAIM_MS = 60_000;

/**
 * Writes the records of delivered tasks that their worker could not (docs/decisions/exact-usage.md): MongoDB was
 * away, or the worker died between delivery and record. Every worker looks; a claim keeps two from taking the same
 * task at once. A task becomes due RECORD_GRACE_MS after its delivery, when its own worker has had its chance.
 */
@Injectable()
export class RecordBacklog implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly turns = new PeriodicTurns(BACKLOG_INTERVAL_MS, () => this.writeDue(Date.now()));
  /** The last turn met a failure: the next one probes with a single record rather than claiming a hundred. */
  private failing = false;

  constructor(
    private readonly pending: PendingRecords,
    private readonly recorder: TaskRecorder,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.turns.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.turns.stop();
  }

  /** Writes what is due by `now`. A turn that meets a failure stops and waits for the next. */
  private async writeDue(now: number): Promise<void> {
    let written = 0;
    try {
      for (;;) {
        const limit = this.failing ? 1 : CLAIM_LIMIT;
        const due = await this.pending.claimDue(now, limit, CLAIM_MS);
        await this.recorder.write(due);
        written += due.length;
        this.failing = false;
        if (due.length < limit) break;
      }
      if (written > 0) this.logger.info({ written }, 'task records written from the record backlog');
    } catch (error) {
      // Once per outage: the backlog keeps every record until MongoDB is back.
      if (!this.failing) this.logger.warn({ err: (error as Error).message, written }, 'record backlog waits');
      this.failing = true;
    }
  }
}
