import { pino } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export function createLogger(level: string) {
  return pino({ level, base: { service: 'sandbank' } });
}

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
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
