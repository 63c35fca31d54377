import { builder } from '../../graphql/builder.ts';
import { registerObjectType } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { chaosOperations } from './chaos.operations.ts';
import type { ChaosSetting } from './chaos.service.ts';

const ChaosRef = builder.objectRef<ChaosSetting>('Chaos').implement({
  description:
    "The merchant's chaos setting (GET /v1/simulate/chaos): faults injected into its keyed REST requests and GraphQL queries and mutations before they run, to test a client's retries and timeouts, and into its webhook deliveries (duplicates, delays, reordering). See docs/guide/chaos.md.",
  fields: (t) => ({
    faults: t.exposeString('faults', {
      nullable: true,
      description:
        'The API request faults in the chaos grammar, canonical form ("latency=200ms; error=0.3; status=503; seed=42"); null when none.',
    }),
    webhookFaults: t.exposeString('webhookFaults', {
      nullable: true,
      description:
        'The webhook delivery faults in the webhook chaos grammar, canonical form ("duplicate=0.1; delay=0.2; delay_for=5000ms; seed=42"); null when none.',
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was set; null when none is.',
    }),
  }),
});

registerObjectType('Chaos', ChaosRef);
mountGraphqlOperations(chaosOperations);
