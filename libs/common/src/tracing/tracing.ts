import { Context, context, Span, SpanOptions, trace, Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { contextOf, withTracer } from './trace-context';

/** The settings tracing reads (Env): with no endpoint there is no tracing. */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
}

let contextManagerSet = false;

/**
 * One process's tracing (docs/operations.md, "Tracing"). Off, it holds no tracer, and every caller skips its spans
 * before making any: nothing of the SDK is registered and the OpenTelemetry API stays its no-op self. On, it owns its
 * own TracerProvider exporting over OTLP/HTTP (JSON) in batches, not a global one, so an api and a worker in one
 * process (the e2e suites) each name their own service. Spans are made explicitly where a stage starts; nothing is
 * patched.
 */
export class Tracing {
  private constructor(
    readonly tracer?: Tracer,
    private readonly provider?: TracerProvider,
  ) {}

  static off(): Tracing {
    return new Tracing();
  }

  static fromSettings(settings: TracingSettings, service: 'api' | 'worker'): Tracing {
    const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (!endpoint) return Tracing.off();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({
        [ATTR_SERVICE_NAME]: settings.OTEL_SERVICE_NAME ?? `model-gateway-${service}`,
        'gateway.process': service,
      }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl(endpoint) }) })],
    });
    // The context of a task follows its awaits into the provider adapters (their client spans) and into log lines.
    if (!contextManagerSet)
      contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    return new Tracing(provider.getTracer('model-gateway'), provider);
  }

  get enabled(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * A span under `parent` (a carried `traceparent`, or a context), with its context holding the span and this tracer
   * for the stages under it. Only called when tracing is on.
   */
  start(name: string, options: SpanOptions, parent: Context | string | undefined): { span: Span; context: Context } {
    const tracer = this.tracer ?? trace.getTracer('model-gateway');
    const parentContext = typeof parent === 'string' || parent === undefined ? contextOf(parent) : parent;
    const span = tracer.startSpan(name, options, parentContext);
    return { span, context: withTracer(trace.setSpan(parentContext, span), tracer) };
  }

  /** The context continuing a carried `traceparent`, with this tracer for the spans started under it. */
  continue(traceparent: string): Context {
    return this.tracer ? withTracer(contextOf(traceparent), this.tracer) : contextOf(traceparent);
  }

  /** Sends what is left (at shutdown). */
  async shutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}

/** OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base URL; spans go to its /v1/traces, as the specification says. */
function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}
