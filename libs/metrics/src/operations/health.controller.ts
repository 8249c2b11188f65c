import { Controller, Get } from '@nestjs/common';

/**
 * Liveness, on the public port: it says only that the process answers. Readiness and /metrics are on the operations
 * listener (operations-listener.ts), not here.
 */
@Controller('health')
export class HealthController {
  @Get('live')
  live() {
    return { status: 'ok' };
  }
}
