import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import { describedValues } from '../../kernel/described-values.ts';
import type { ScenarioResult } from './conformance.judge.ts';
import { HANDLER_CONTRACT, SCENARIO_IDS } from './conformance.scenarios.ts';
import type { ConformanceRunRow } from './conformance.service.ts';

export const RUN_STATES = ['running', 'passed', 'failed', 'interrupted'] as const;

export const RunStateValues = describedValues(
  'WebhookConformanceRunState',
  'Where a conformance run stands.',
  {
    running: 'Its deliveries are being sent and judged.',
    passed: 'Every scenario passed.',
    failed: 'At least one scenario failed or timed out.',
    interrupted: 'The server stopped (or the run could not go on) before it ended.',
  } satisfies Record<(typeof RUN_STATES)[number], string>,
);
export const OUTCOMES = ['passed', 'failed', 'timed_out', 'pending'] as const;

const DeliveryWire = z
  .object({
    label: z
      .string()
      .meta({ description: 'What the delivery is in its scenario ("first", "duplicate", "retry", …).' }),
    sent_at: z.string().meta({ format: 'date-time', description: 'When it was sent (real time).' }),
    request: z
      .object({
        headers: z
          .record(z.string(), z.string())
          .meta({ description: 'The headers sent (webhook-id, -timestamp, -signature).' }),
        body: z.string().meta({ description: 'The body sent (the first 4 KiB).' }),
      })
      .meta({ description: 'The request as sent.' }),
    response: z
      .object({
        status: z.number().int().meta({ description: 'The status the handler answered.' }),
        body: z.string().meta({ description: 'Its body (the first 2 KiB).' }),
      })
      .nullable()
      .meta({ description: 'The answer; null when there was none.' }),
    duration_ms: z.number().int().meta({ description: 'How long the answer took, ms.' }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why there was no answer (a timeout, a refused connection).' }),
    timed_out: z.boolean().meta({ description: 'No answer within the run’s timeout.' }),
  })
  .meta({ id: 'ConformanceDelivery', description: 'One delivery of a scenario, and its answer.' });

const ScenarioWire = z
  .object({
    id: z.enum(SCENARIO_IDS).meta({ description: 'The scenario.' }),
    group: z.number().int().meta({ description: 'Its group in the suite (1 to 7).' }),
    title: z.string().meta({ description: 'Its name.' }),
    expectation: z.string().meta({ description: 'What a correct handler does.' }),
    outcome: z
      .enum(OUTCOMES)
      .meta({ description: 'passed, failed, timed_out, or pending while the run goes on.' }),
    explanation: z
      .string()
      .nullable()
      .meta({ description: 'Why it failed or timed out, naming what shows it; null when it passed.' }),
    object_id: z.string().nullable().meta({ description: 'The collection its events are about (col_…).' }),
    event_ids: z.array(z.string()).meta({ description: 'The events it delivered (webhook-id).' }),
    calls: z
      .object({
        reads: z.number().int().meta({ description: 'GET calls on the collection.' }),
        writes: z.number().int().meta({ description: 'Writes on the collection that succeeded.' }),
        failed_writes: z.number().int().meta({ description: 'Writes that failed.' }),
      })
      .meta({ description: 'The handler’s calls on the collection while the scenario ran.' }),
    deliveries: z.array(DeliveryWire).meta({ description: 'What was sent and answered, in order.' }),
    duration_ms: z.number().int().meta({ description: 'How long the scenario took, ms.' }),
  })
  .meta({
    id: 'ConformanceScenarioResult',
    description: "A scenario's outcome, with the deliveries behind it.",
  });

const SummaryWire = z
  .object({
    total: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    timed_out: z.number().int(),
    pending: z.number().int(),
  })
  .meta({ id: 'ConformanceSummary', description: 'How many scenarios had each outcome.' });

export function summaryOf(row: ConformanceRunRow) {
  const results = row.scenarios as ScenarioResult[];
  const countOf = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
  return {
    total: results.length,
    passed: countOf('passed'),
    failed: countOf('failed'),
    timed_out: countOf('timed_out'),
    pending: countOf('pending'),
  };
}

/** Where a run's JUnit report is downloaded. */
export const junitUrl = (publicUrl: string, row: Pick<ConformanceRunRow, 'endpointId' | 'id'>) =>
  `${publicUrl}/v1/webhook_endpoints/${row.endpointId}/conformance_runs/${row.id}/junit`;

export const ConformanceRun = defineObject<ConformanceRunRow>()(
  'WebhookConformanceRun',
  'webhook_conformance_run',
  "A conformance run: a fixed suite of deliveries of real events of the merchant's own collections, sent to one webhook endpoint, judging what its handler answers and does (its calls back into Sandbank). running → passed or failed; interrupted when the server stopped during it.",
  {
    endpoint_id: field.text('The endpoint judged (we_…).', (row: ConformanceRunRow) => row.endpointId),
    url: field.text('Where the deliveries went.'),
    state: field.enum(RUN_STATES, 'Where it stands.'),
    seed: field.int('What its amounts and forged bytes were drawn from: the same seed sends the same.'),
    timeout_ms: field.int('How long each delivery (and each wait for the handler’s work) may take, ms.'),
    started_at: field.timestamp('When it started (real time).'),
    finished_at: field.nullableTimestamp('When it ended (real time); null while it runs.'),
    summary: field.custom<ConformanceRunRow>(SummaryWire, summaryOf),
    instructions: field.custom<ConformanceRunRow>(
      z.array(z.string()).meta({
        description:
          'What the handler is expected to do (docs/guide/webhook-conformance.md says it at length).',
      }),
      () => [...HANDLER_CONTRACT],
    ),
    scenarios: field.custom<ConformanceRunRow>(
      z.array(ScenarioWire).meta({ description: 'Each scenario, in the suite’s order.' }),
      (row) => row.scenarios,
    ),
    junit_url: field.url<ConformanceRunRow>('Its report as JUnit XML, for CI.', (row, rc) =>
      junitUrl(rc.publicUrl, row),
    ),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
);
