import { defineOperation } from '../operation.ts';
import { ChaosWire, chaosResource, SetChaosSchema } from './chaos.resource.ts';
import { getChaosSetting, setChaosSetting } from './chaos.service.ts';

/**
 * The chaos setting's operations, each declared once: its REST route and its GraphQL field. Chaos
 * never faults them (CHAOS_FREE_PATHS on REST, CHAOS_FREE_FIELDS on GraphQL), so it can always be
 * cleared.
 */

const TAGS = ['Simulation'];
const Chaos = { name: 'Chaos', wire: ChaosWire, render: chaosResource };

export const chaosOperations = [
  defineOperation({
    name: 'getChaos',
    method: 'get',
    path: '/simulate/chaos',
    tags: TAGS,
    summary: "The merchant's chaos setting (never faulted itself)",
    output: Chaos,
    run: (ctx) => getChaosSetting(ctx),
    graphql: { name: 'chaos' },
  }),
  defineOperation({
    name: 'setChaos',
    method: 'post',
    path: '/simulate/chaos',
    tags: TAGS,
    summary:
      'Set or clear the faults injected into every keyed API request (never into this operation, so it can always be cleared) and into the webhook deliveries of the merchant',
    body: SetChaosSchema,
    output: Chaos,
    run: (ctx, { body }) => setChaosSetting(ctx, { faults: body.faults, webhookFaults: body.webhook_faults }),
    graphql: { reload: false },
  }),
];
