import { AppConfig, LOGGER } from '@gateway/common';
import { MaintenanceJob, QueueName } from '@gateway/queue';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { Logger } from 'pino';
import { MaintenancePass } from '../tasks/maintenance-pass.service';
import { QueueProcessor } from './queue-processor';

const EXPIRE_FILES = 'expire-files';

/**
 * Housekeeping (MaintenancePass) on a BullMQ job scheduler: however many workers run, one pass happens per interval.
 * On shutdown a pass in progress stops at its next step (the next pass carries on), so closing the worker, which
 * waits for active jobs, does not wait for a long pass (the first of a database walks back 30 days of hours).
 */
@Injectable()
export class MaintenanceProcessor
  implements QueueProcessor<QueueName.Maintenance>, OnApplicationBootstrap, OnModuleDestroy
{
  readonly queue = QueueName.Maintenance;
  readonly concurrency = 1;
  private readonly stopping = new AbortController();

  constructor(
    private readonly config: AppConfig,
    @InjectQueue(QueueName.Maintenance) private readonly maintenance: Queue<MaintenanceJob>,
    private readonly pass: MaintenancePass,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.maintenance.upsertJobScheduler(
      EXPIRE_FILES,
      { every: this.config.MAINTENANCE_INTERVAL_MS },
      { name: EXPIRE_FILES, data: { kind: 'expire-files' }, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  /** Runs beside JobPickup's close (Nest calls a module's onModuleDestroy hooks together). */
  onModuleDestroy(): void {
    this.stopping.abort();
  }

  async process(job: Job<MaintenanceJob>): Promise<void> {
    if (job.data.kind !== 'expire-files') return;
    const deleted = await this.pass.run(Date.now(), this.stopping.signal);
    if (Object.values(deleted).some((count) => count > 0))
      this.logger.info(deleted, 'expired files, result bodies, old webhook attempts and kept bodies deleted');
  }
}
