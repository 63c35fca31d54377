import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { graphqlObject } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { junitReport } from './conformance.junit.ts';
import { conformanceOperations } from './conformance.operations.ts';
import { ConformanceRun, RunStateValues, summaryOf } from './conformance.resource.ts';
import { type ConformanceRunRow, listRuns, runsByIds } from './conformance.service.ts';

export const ConformanceRunRef = graphqlObject<ConformanceRunRow>(ConformanceRun, {
  interfaces: [NodeRef],
  enums: { state: enumOf(RunStateValues) },
  // The report's nested parts as JSON: REST's schema (the OpenAPI document) describes their fields.
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    summary: t.field({
      type: 'JSONObject',
      description: 'How many scenarios had each outcome: total, passed, failed, timed_out, pending.',
      resolve: (row: ConformanceRunRow) => summaryOf(row),
    }),
    scenarios: t.field({
      type: ['JSONObject'],
      description:
        "Each scenario's outcome with its deliveries, in the suite's order (REST's ConformanceScenarioResult).",
      resolve: (row: ConformanceRunRow) => row.scenarios,
    }),
    instructions: t.stringList({
      description: 'What the handler is expected to do.',
      resolve: (row: ConformanceRunRow) => ConformanceRun.render(row, { publicUrl: '' }).instructions,
    }),
    junit: t.string({
      description: 'The report as JUnit XML, for CI.',
      resolve: (row: ConformanceRunRow) => junitReport(row),
    }),
  }),
});

builder.queryFields((t) => ({
  webhookConformanceRuns: t.field({
    type: [ConformanceRunRef],
    description: "An endpoint's conformance runs, newest first: the latest 20 (REST pages through all).",
    args: { endpointId: t.arg.id({ required: true, description: "The endpoint's id (we_…)." }) },
    resolve: async (_root, args, ctx) =>
      (await listRuns(serviceContext(ctx), String(args.endpointId), { limit: 20 })).data,
  }),
}));

nodeKind('conformanceRun', ConformanceRunRef, runsByIds);
mountGraphqlOperations(conformanceOperations);
