import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../metrics.service';
import { ReadinessCheck } from './readiness-check';

/** A check that has not answered by then counts as not ready, and the scrape goes on. */
const READINESS_SCRAPE_TIMEOUT_MS = 3000;

/**
 * gateway_ready: the readiness check (/health/ready) run at each scrape, so that an alert sees what the
 * orchestrator's probe sees, without Prometheus probing the endpoint itself.
 */
@Injectable()
export class ReadinessCollector implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessCheck,
  ) {}

  onModuleInit(): void {
    this.metrics.onScrape(async () => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<number>((resolve) => {
        timer = setTimeout(() => resolve(503), READINESS_SCRAPE_TIMEOUT_MS);
      });
      const checked = this.readiness.run().then(
        ({ status }) => status,
        () => 503,
      );
      const status = await Promise.race([checked, timedOut]).finally(() => clearTimeout(timer));
      this.metrics.ready.set(status === 200 ? 1 : 0);
    });
  }
}
