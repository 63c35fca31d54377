import { writeFileSync } from 'node:fs';
import { type CliValues, callServer } from './cli-remote.ts';

/**
 * `sandbank check-webhooks URL`: judges the webhook handler at URL with the conformance suite,
 * through the running server (POST /v1/webhook_endpoints/{id}/conformance_runs, waited for), and
 * prints the report; exit code 0 when every scenario passed, 1 otherwise. The endpoint is the
 * merchant's endpoint with exactly that URL, or a new one (with --secret when the handler already
 * has one configured).
 */

interface Scenario {
  id: string;
  title: string;
  outcome: string;
  explanation: string | null;
  expectation: string;
}

interface Run {
  id: string;
  state: string;
  seed: number;
  url: string;
  endpoint_id: string;
  summary: { total: number; passed: number; failed: number; timed_out: number };
  scenarios: Scenario[];
}

const MARK: Record<string, string> = { passed: 'ok  ', failed: 'FAIL', timed_out: 'TIME', pending: '... ' };

async function endpointFor(url: string, values: CliValues, log: (line: string) => void): Promise<string> {
  const page = JSON.parse(
    await callServer('check-webhooks', 'endpoint list', values, 'GET', '/v1/webhook_endpoints?limit=100'),
  ) as { data: { id: string; url: string }[] };
  const found = page.data.find((endpoint) => endpoint.url === url);
  const secret = typeof values.secret === 'string' ? values.secret : undefined;
  if (found) {
    log(
      `Using endpoint ${found.id} (${url})${secret ? ', which signs with the secret it was created with (delete it to start over with another)' : ''}.`,
    );
    return found.id;
  }
  const created = JSON.parse(
    await callServer('check-webhooks', 'endpoint creation', values, 'POST', '/v1/webhook_endpoints', {
      url,
      ...(secret ? { secret } : {}),
    }),
  ) as { id: string; secret: string };
  log(
    secret
      ? `Created endpoint ${created.id} for ${url}, signing with the given secret.`
      : `Created endpoint ${created.id} for ${url}. Its signing secret: ${created.secret}\n(the handler verifies with it; pass --secret next time to choose it yourself)`,
  );
  return created.id;
}

export async function runCheckWebhooks(positionals: string[], values: CliValues): Promise<number> {
  const [url] = positionals;
  if (!url || positionals.length > 1) throw new Error('check-webhooks needs one URL (see --help)');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const quiet = values.json === true;
  const endpointId = await endpointFor(url, values, quiet ? () => {} : log);
  const body: Record<string, unknown> = { wait: true };
  for (const [flag, field] of [
    ['timeout-ms', 'timeout_ms'],
    ['seed', 'seed'],
  ] as const) {
    const value = values[flag];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^\d+$/.test(value))
      throw new Error(`--${flag} must be a whole number`);
    body[field] = Number(value);
  }
  if (!quiet) log('Running the conformance suite (13 scenarios)…');
  const text = await callServer(
    'check-webhooks',
    'conformance run',
    values,
    'POST',
    `/v1/webhook_endpoints/${endpointId}/conformance_runs`,
    body,
  );
  const run = JSON.parse(text) as Run;
  if (typeof values.junit === 'string') {
    const xml = await callServer(
      'check-webhooks',
      'JUnit report',
      values,
      'GET',
      `/v1/webhook_endpoints/${endpointId}/conformance_runs/${run.id}/junit`,
    );
    writeFileSync(values.junit, xml);
  }
  if (quiet) {
    log(text);
  } else {
    for (const scenario of run.scenarios) {
      log(`${MARK[scenario.outcome] ?? scenario.outcome} ${scenario.id.padEnd(24)}${scenario.title}`);
      if (scenario.explanation) log(`     ${scenario.explanation}\n     Expected: ${scenario.expectation}`);
    }
    const { total, passed, failed, timed_out } = run.summary;
    log(
      `\n${run.state === 'passed' ? 'PASSED' : 'FAILED'}: ${passed} of ${total} passed, ${failed} failed, ${timed_out} timed out (run ${run.id}, seed ${run.seed}).`,
    );
    if (typeof values.junit === 'string') log(`JUnit report written to ${values.junit}.`);
  }
  return run.state === 'passed' ? 0 : 1;
}
