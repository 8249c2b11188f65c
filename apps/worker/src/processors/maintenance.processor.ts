import { AppConfig, LOGGER } from '@gateway/common';
import { WebhookDeliveriesRepository } from '@gateway/db';
import { ImageStore } from '@gateway/imaging';
import { MaintenanceJob, QueueName } from '@gateway/queue';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { Logger } from 'pino';
import { TaskProcessor } from '../tasks/task-processor';

const EXPIRE_FILES = 'expire-files';
/** Webhook attempts stay listed in the console this long: the retry schedule spans about 3 days. */
const DELIVERY_HISTORY_MS = 30 * 24 * 3600 * 1000;

/**
 * Housekeeping on a BullMQ job scheduler: however many workers run, one sweep happens per interval. Expired
 * images, abandoned inputs and old webhook attempts are deleted here because TTL indexes are outside the portable
 * subset (DESIGN §5).
 */
@Injectable()
export class MaintenanceProcessor implements TaskProcessor<QueueName.Maintenance>, OnApplicationBootstrap {
  readonly queue = QueueName.Maintenance;
  readonly concurrency = 1;

  constructor(
    private readonly config: AppConfig,
    @InjectQueue(QueueName.Maintenance) private readonly maintenance: Queue<MaintenanceJob>,
    private readonly store: ImageStore,
    private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.maintenance.upsertJobScheduler(
      EXPIRE_FILES,
      { every: this.config.MAINTENANCE_INTERVAL_MS },
      { name: EXPIRE_FILES, data: { kind: 'expire-files' }, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  async process(job: Job<MaintenanceJob>): Promise<void> {
    if (job.data.kind !== 'expire-files') return;
    const deleted = await this.store.deleteExpired();
    const deliveries = await this.deliveries.deleteCreatedBefore(new Date(Date.now() - DELIVERY_HISTORY_MS));
    if (deleted.images + deleted.inputs + deliveries > 0) this.logger.info({ ...deleted, deliveries }, 'expired files and old webhook attempts deleted');
  }
}
