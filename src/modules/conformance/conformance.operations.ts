import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { defineOperation } from '../operation.ts';
import { junitReport } from './conformance.junit.ts';
import { ConformanceRun } from './conformance.resource.ts';
import { startRunSchema } from './conformance.schema.ts';
import { getRun, listRuns, startRun } from './conformance.service.ts';

/** The operations on webhook conformance runs, each declared once: its REST route and its GraphQL field. */

const TAGS = ['Conformance'];
const endpointParam = z.object({ id: z.string().min(1).max(64).describe("The endpoint's id (we_…).") });
const runParams = endpointParam.extend({
  run: z.string().min(1).max(64).describe("The run's id (whrun_…)."),
});

/** A run is not replayed: its answer is a moment of a run that goes on. */
function refuseRunKey(key: string | null | undefined): void {
  if (key)
    throw new SandbankError('idempotency_key_invalid', {
      message:
        'Starting a conformance run takes no Idempotency-Key: a second start while one runs is refused (409), so a retry cannot start two.',
    });
}

export const conformanceOperations = [
  defineOperation({
    name: 'startWebhookConformanceRun',
    method: 'post',
    path: '/webhook_endpoints/{id}/conformance_runs',
    tags: TAGS,
    summary: "Judge the endpoint's handler: send the conformance suite's deliveries to it",
    description:
      "Creates one collection per scenario (paid by card; its events are delivered by the run alone), sends the suite's deliveries to the endpoint's URL and watches the handler's calls on each collection. Answers at once with the run `running` (or, with `wait`, once it has ended); GET the run for its report. docs/guide/webhook-conformance.md explains every scenario.",
    params: endpointParam,
    body: startRunSchema,
    optionalBody: true,
    refuseKey: refuseRunKey,
    errors: ['conformance_run_in_progress', 'idempotency_key_invalid'],
    output: ConformanceRun,
    run: (ctx, { params, body }) => startRun(ctx, params.id, body ?? {}),
    graphql: {
      inputArg: { name: 'input', description: 'How to run it.', type: 'StartWebhookConformanceRunInput' },
      reload: false,
    },
  }),
  defineOperation({
    name: 'listWebhookConformanceRuns',
    method: 'get',
    path: '/webhook_endpoints/{id}/conformance_runs',
    tags: TAGS,
    summary: "The endpoint's conformance runs, newest first",
    params: endpointParam,
    query: listQuerySchema,
    output: ConformanceRun,
    list: true,
    run: (ctx, { params, query }) => listRuns(ctx, params.id, query),
    // GraphQL's webhookConformanceRuns is written by hand (conformance.graphql.ts): it takes the endpoint's id.
    graphql: false,
  }),
  defineOperation({
    name: 'getWebhookConformanceRun',
    method: 'get',
    path: '/webhook_endpoints/{id}/conformance_runs/{run}',
    tags: TAGS,
    summary: 'One conformance run: its report, scenario by scenario',
    params: runParams,
    output: ConformanceRun,
    run: (ctx, { params }) => getRun(ctx, params.id, params.run),
    graphql: { name: 'webhookConformanceRun' },
  }),
  // GraphQL answers it as WebhookConformanceRun.junit (conformance.graphql.ts).
  defineOperation({
    name: 'getWebhookConformanceRunJunit',
    method: 'get',
    path: '/webhook_endpoints/{id}/conformance_runs/{run}/junit',
    tags: TAGS,
    summary: 'A conformance run as JUnit XML (one test case per scenario), for CI',
    params: runParams,
    output: ConformanceRun,
    file: { mediaTypes: ['application/xml'] },
    run: async (ctx, { params }) => {
      const run = await getRun(ctx, params.id, params.run);
      return {
        body: junitReport(run),
        contentType: 'application/xml; charset=utf-8',
        filename: `${run.id}.junit.xml`,
      };
    },
    graphql: false,
  }),
];
