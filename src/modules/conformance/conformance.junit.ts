import { type XmlNode, xmlDocument } from '../statements/statements.xml.ts';
import type { DeliveryRecord } from './conformance.deliver.ts';
import type { ScenarioResult } from './conformance.judge.ts';
import type { ConformanceRunRow } from './conformance.service.ts';

/** A delivery as a failure's text shows it: the request sent and the answer it got. */
function deliveryText(record: DeliveryRecord): string {
  const headers = Object.entries(record.request.headers)
    .map(([name, value]) => `  ${name}: ${value}`)
    .join('\n');
  const answer = record.response
    ? `<- ${record.response.status} in ${record.duration_ms} ms\n  ${record.response.body}`
    : `<- no answer after ${record.duration_ms} ms (${record.error ?? 'no answer'})`;
  return `-> POST (${record.label}) at ${record.sent_at}\n${headers}\n  ${record.request.body}\n${answer}`;
}

function testcase(result: ScenarioResult): XmlNode {
  const attributes = {
    classname: `sandbank.webhook_conformance.group_${result.group}`,
    name: `${result.id}: ${result.title}`,
    time: (result.duration_ms / 1000).toFixed(3),
  };
  if (result.outcome === 'passed') return ['testcase', [], attributes];
  if (result.outcome === 'pending')
    return ['testcase', [['skipped', [], { message: result.explanation ?? 'not run yet' }]], attributes];
  const text = [
    result.explanation ?? '',
    `Expected: ${result.expectation}`,
    ...result.deliveries.map(deliveryText),
  ].join('\n\n');
  return [
    'testcase',
    [['failure', text, { message: result.explanation ?? '', type: result.outcome }]],
    attributes,
  ];
}

/** The run as JUnit XML, one test case per scenario: what CI servers read and show. */
export function junitReport(run: ConformanceRunRow): string {
  const results = run.scenarios as ScenarioResult[];
  const failures = results.filter((r) => r.outcome === 'failed' || r.outcome === 'timed_out').length;
  const skipped = results.filter((r) => r.outcome === 'pending').length;
  const seconds = run.finishedAt
    ? ((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000).toFixed(3)
    : '0.000';
  const counts = {
    tests: String(results.length),
    failures: String(failures),
    errors: '0',
    skipped: String(skipped),
    time: seconds,
  };
  return xmlDocument([
    'testsuites',
    [
      [
        'testsuite',
        [
          [
            'properties',
            [
              ['property', [], { name: 'run', value: run.id }],
              ['property', [], { name: 'endpoint', value: run.endpointId }],
              ['property', [], { name: 'url', value: run.url }],
              ['property', [], { name: 'seed', value: String(run.seed) }],
              ['property', [], { name: 'timeout_ms', value: String(run.timeoutMs) }],
            ],
          ],
          ...results.map(testcase),
        ],
        { name: `Webhook conformance of ${run.url}`, timestamp: run.startedAt.toISOString(), ...counts },
      ],
    ],
    { name: 'Sandbank webhook conformance', ...counts },
  ]);
}
