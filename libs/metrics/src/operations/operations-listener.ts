import { GatewayError, LOGGER, newId, toEnvelope } from '@gateway/common';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Logger } from 'pino';
import { MetricsService } from '../metrics.service';
import { ReadinessCheck } from './readiness-check';

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The operations listener: /metrics, /health/ready and /health/live on an address of their own (the api's
 * METRICS_HOST:METRICS_PORT, the worker's WORKER_HOST:WORKER_PORT), so what they tell about the deployment is not on
 * the public port. Plain node:http: no body is read, no route is shared with the api's.
 */
@Injectable()
export class OperationsListener implements OnApplicationShutdown {
  private server?: Server;

  constructor(
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessCheck,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts listening; answers its URL (port 0 takes a free port). */
  async listen(port: number, host: string): Promise<string> {
    const server = createServer((request, response) => {
      this.answer(request, response).catch((error: Error) => {
        this.logger.error({ err: error.message, url: request.url }, 'operations listener failed');
        if (!response.headersSent) send(response, 500, envelope(new GatewayError('InternalError', 'scrape failed')));
        else response.destroy();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    this.logger.info({ url }, 'operations listener: /metrics, /health/ready, /health/live');
    return url;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // A scraper's keep-alive connection would otherwise hold close() until it times out.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return send(response, 404, envelope(new GatewayError('NotFound', 'the operations listener answers GET only')));
    if (path === '/metrics') return send(response, 200, await this.metrics.render(), PROMETHEUS_TEXT);
    if (path === '/health/ready') {
      const { status, report } = await this.readiness.run();
      return send(response, status, JSON.stringify(report));
    }
    if (path === '/health/live') return send(response, 200, JSON.stringify({ status: 'ok' }));
    send(response, 404, envelope(new GatewayError('NotFound', 'no such route; /metrics, /health/ready, /health/live')));
  }
}

function envelope(error: GatewayError): string {
  return JSON.stringify(toEnvelope(error, newId('req')));
}

function send(response: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
