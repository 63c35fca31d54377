/**
 * Webhook conformance in the dashboard, in-process: the endpoint's page starts a run against a
 * receiver that refuses everything, the run's page shows each scenario (refreshing while it runs),
 * with its explanation and deliveries, and serves the JUnit report; a bad timeout is the form's
 * error and starts nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';

const app = dashboardTestApp();

describe('conformance in the dashboard', () => {
  it('runs the checks from the endpoint page and shows the report', async () => {
    const refusing = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(401).end('unsigned'));
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const m = await app().merchant('Dashboard conformance');
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hook`;
      const endpoint = (await app().post(m, '/v1/webhook_endpoints', { url })).body;
      const browser = await signedIn(app, m);
      const page = await browser.get(`/dashboard/webhooks/${endpoint.id}`);
      expect(page.html).toContain('data-testid="no-conformance-runs"');

      const refused = await browser.post(`/dashboard/webhooks/${endpoint.id}/conformance_runs`, {
        timeout_ms: '50',
      });
      const back = await browser.get(refused.location ?? '');
      expect(back.html).toContain('data-testid="flash-error"');
      expect((await app().get(m, `/v1/webhook_endpoints/${endpoint.id}/conformance_runs`)).body.data).toEqual(
        [],
      );

      const started = await browser.post(`/dashboard/webhooks/${endpoint.id}/conformance_runs`, {
        timeout_ms: '1000',
      });
      expect(started.status).toBe(303);
      const runUrl = started.location ?? '';
      expect(runUrl).toMatch(/\/conformance_runs\/whrun_/);
      let report = await browser.get(runUrl);
      while (report.html.includes('data-state="running"')) {
        expect(report.html).toContain('http-equiv="refresh"');
        await new Promise((resolve) => setTimeout(resolve, 100));
        report = await browser.get(runUrl);
      }
      expect(report.html).toContain('data-state="failed"');
      expect(report.html).toContain('data-id="signature_missing" data-outcome="passed"');
      expect(report.html).toContain('data-id="valid_delivery" data-outcome="failed"');
      expect(report.html).toContain('was answered 401');
      expect(report.html).toContain('data-testid="conformance-delivery"');
      const junit = await browser.get(`${runUrl}/junit`);
      expect(junit.status).toBe(200);
      expect(junit.html).toContain('<testsuites name="Sandbank webhook conformance"');
      expect((await browser.get(`/dashboard/webhooks/${endpoint.id}`)).html).toContain(
        'data-testid="conformance-run-row"',
      );
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});
