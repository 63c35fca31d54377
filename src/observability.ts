import { type DestinationStream, pino, stdSerializers } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Query errors quote the statement's parameters ("Failed query: … params: 4242…,123"): card numbers,
 * e-mail addresses. Every error goes through this before it is logged, so no parameter ever is.
 */
function redactParams(text: string): string {
  return text.replace(/params: [^\n]*/g, 'params: [redacted]');
}

function errorSerializer(error: unknown): unknown {
  const plain = stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  const seen = new Set<unknown>();
  const scrub = (value: unknown): unknown => {
    if (typeof value === 'string') return redactParams(value);
    if (value && typeof value === 'object' && !seen.has(value)) {
      seen.add(value);
      for (const [key, inner] of Object.entries(value))
        (value as Record<string, unknown>)[key] = scrub(inner);
    }
    return value;
  };
  return scrub(plain);
}

export function createLogger(level: string, destination?: DestinationStream) {
  const options = { level, base: { service: 'sandbank' }, serializers: { err: errorSerializer } };
  return destination ? pino(options, destination) : pino(options);
}

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  /** Faults injected by chaos (docs/guide/chaos.md), by kind and the status answered. */
  chaos: Counter<'fault' | 'status'>;
  /** HTTP requests being handled right now (read synchronously by the webhook pump). */
  inFlight: { value: number };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const inFlight = { value: 0 };
  new Gauge({
    name: 'sandbank_http_requests_in_flight',
    help: 'HTTP requests being handled',
    registers: [registry],
    collect() {
      this.set(inFlight.value);
    },
  });
  return {
    registry,
    inFlight,
    requests: new Counter({
      name: 'sandbank_http_requests_total',
      help: 'HTTP requests by method, matched route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    chaos: new Counter({
      name: 'sandbank_chaos_injected_total',
      help: 'Faults injected by Sandbank-Chaos or a merchant chaos setting, by fault and answered status',
      labelNames: ['fault', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'sandbank_http_request_duration_seconds',
      help: 'HTTP request duration by method and matched route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

/** A gauge of the live GraphQL subscriptions this instance is streaming, read at scrape time. */
export function trackLiveSubscriptions(metrics: Metrics, count: () => number): void {
  new Gauge({
    name: 'sandbank_live_subscriptions',
    help: 'GraphQL subscriptions streaming live events from this instance',
    registers: [metrics.registry],
    collect() {
      this.set(count());
    },
  });
}
