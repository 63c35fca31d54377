import type {
  CheckWebhooksOptions,
  WebhookConformanceReport,
  WebhookConformanceScenario,
} from './testing.ts';
import { call } from './testing-receiver.ts';

/**
 * sandbank/testing's checkWebhooks(): the conformance suite against a handler of the code under
 * test, through the public REST API with the merchant's key, waited for. The endpoint is the
 * merchant's one with that url (as it is: reset keeps endpoints), else a new one with `secret`.
 */
export async function checkWebhooks(
  base: string,
  key: string,
  options: CheckWebhooksOptions,
): Promise<WebhookConformanceReport> {
  const endpoints = await call<{ data: { id: string; url: string }[] }>(
    base,
    key,
    'GET',
    '/webhook_endpoints?limit=100',
  );
  let endpointId = endpoints.data.find((endpoint) => endpoint.url === options.url)?.id;
  if (!endpointId) {
    const created = await call<{ id: string }>(base, key, 'POST', '/webhook_endpoints', {
      url: options.url,
      ...(options.secret ? { secret: options.secret } : {}),
    });
    endpointId = created.id;
  }
  const run = await call<WebhookConformanceReport>(
    base,
    key,
    'POST',
    `/webhook_endpoints/${endpointId}/conformance_runs`,
    {
      wait: true,
      ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    },
  );
  const failures: WebhookConformanceScenario[] = run.scenarios.filter((s) => s.outcome !== 'passed');
  return { ...run, failures };
}
