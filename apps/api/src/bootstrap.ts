import { AppConfig, createLogger, newId, PinoNestLogger, SHUTDOWN_SIGNALS, Tracing } from '@gateway/common';
import { MetricsService } from '@gateway/metrics';
import { RefusedCalls } from '@gateway/redis';
import { ApiAuthenticator } from '@gateway/tenancy';
import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiModule } from './api.module';
import { findConsoleBuild, serveConsole } from './console/static/console-static';
import { routeBodyLimit } from './http/body-limits';
import { answerClientError, answerFrameworkError } from './http/framework-errors';
import { installJsonParser } from './http/json-parser';
import { installRequestHooks } from './http/request-hooks';
import { installTraceHook } from './http/trace-hook';
import { installApiAuthHook } from './http/api-auth-hook';
import { installRefusalLog } from './http/refusal-log-hook';
import { closeUnusedConnectionsOnClose } from './http/unused-connections';
import { createValidationPipe } from './http/validation';

/** Builds the api on Fastify; the caller decides where it listens. */
export async function createApiApp(config: AppConfig): Promise<NestFastifyApplication> {
  const logger = createLogger(config.LOG_LEVEL, 'api', config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined);
  for (const warning of config.startupWarnings) logger.warn(warning);
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    genReqId: () => newId('req'),
    // Held sync calls can last SYNC_TIMEOUT_MS; the server must not cut them first. The body's own deadline is
    // BODY_TIMEOUT_MS (json-parser.ts), and Node's headersTimeout (60 s) still bounds the headers.
    requestTimeout: 0,
    keepAliveTimeout: 65_000,
    // request.ip follows X-Forwarded-For only through these peers; anyone else's header is ignored.
    trustProxy: config.TRUSTED_PROXIES.trim() === '' ? false : config.TRUSTED_PROXIES,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  adapter.getInstance().addHook('onRoute', (route) => {
    route.bodyLimit = routeBodyLimit(route.url, config) ?? route.bodyLimit;
  });
  installJsonParser(adapter.getInstance(), config.BODY_TIMEOUT_MS);
  closeUnusedConnectionsOnClose(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config, logger), adapter, {
    logger: new PinoNestLogger(logger),
    // json-parser.ts is the only body parser; it keeps the raw bytes for signed requests.
    bodyParser: false,
  });
  await app.register(fastifyCookie);
  await serveConsole(app.getHttpAdapter().getInstance(), findConsoleBuild(), logger);
  app.get(MetricsService).limitApplicationLabels(config.METRICS_APP_LABELS);
  // First: a request refused by a later hook is still a span, and its log line names its trace.
  installTraceHook(app.getHttpAdapter().getInstance(), app.get(Tracing));
  installRequestHooks(app.getHttpAdapter().getInstance(), app.get(MetricsService), logger);
  // After the request hooks: a refusal still gets its X-Request-Id, timing and log line.
  installApiAuthHook(app.getHttpAdapter().getInstance(), app.get(ApiAuthenticator));
  installRefusalLog(app.getHttpAdapter().getInstance(), app.get(RefusedCalls));
  app.useGlobalPipes(createValidationPipe());
  // Exit 0 once closed, rather than raising the signal again (which main.ts's deadline would take for a second one):
  // the exit code then tells a clean shutdown from a forced one (FORCED_SHUTDOWN_EXIT_CODE).
  app.enableShutdownHooks(SHUTDOWN_SIGNALS, { useProcessExit: true });
  return app;
}
