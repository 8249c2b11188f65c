import { LOGGER } from '@gateway/common';
import { ApplicationsRepository, SweepStateRepository } from '@gateway/db';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';

/** The `sweep_state` entry saying every application stored before the operators' listing has been filed in it. */
const FILED = 'applications-listing';

/**
 * Applications stored before the operators' listing was a feed are filed in it once, oldest first, by the first api
 * to start (in the background: start-up does not wait). The one whole read of `applications` this takes happens once
 * per deployment; every later application is filed as it is created.
 */
@Injectable()
export class ApplicationsListingBackfill implements OnApplicationBootstrap {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly sweeps: SweepStateRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    void this.run().catch((error: unknown) =>
      this.logger.error(
        { err: error },
        'filing earlier applications in the operators listing failed; next start retries',
      ),
    );
  }

  async run(): Promise<void> {
    if ((await this.sweeps.through(FILED)) !== null) return;
    const apps = await this.applications.listCreated();
    await this.applications.fileInListing(apps);
    await this.sweeps.advance(FILED, `${apps.length} filed`);
    if (apps.length > 0)
      this.logger.info({ applications: apps.length }, 'earlier applications filed in the operators listing');
  }
}
