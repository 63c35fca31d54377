import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { SetChaosSchema } from './chaos.resource.ts';
import { type ChaosSetting, getChaosSetting, setChaosSetting } from './chaos.service.ts';

const ChaosRef = builder.objectRef<ChaosSetting>('Chaos').implement({
  description:
    "The merchant's chaos setting (GET /v1/simulate/chaos): faults injected into its keyed REST requests and GraphQL queries and mutations before they run, to test a client's retries and timeouts, and into its webhook deliveries (duplicates, delays, reordering). See docs/chaos.md.",
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
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was set; null when none is.',
      resolve: (setting) => setting.updatedAt,
    }),
  }),
});

builder.queryFields((t) => ({
  chaos: t.field({
    type: ChaosRef,
    description: "The merchant's chaos setting (GET /v1/simulate/chaos).",
    resolve: (_root, _args, ctx) => getChaosSetting(serviceContext(ctx)),
  }),
}));

const setChaosBody = wireInput('setChaos', SetChaosSchema);

builder.mutationFields((t) => ({
  setChaos: t.field({
    type: ChaosRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/simulate/chaos: set the faults injected into every keyed REST request and GraphQL query or mutation of the merchant, and those injected into its webhook deliveries; "" or "none" clears either, an argument left out keeps its value. Never faulted itself.',
    args: {
      faults: t.arg.string({
        required: false,
        description:
          'The API request faults in the chaos grammar ("error=0.3; status=503; seed=42"); "" or "none" clears; left out, they stay.',
      }),
      webhookFaults: t.arg.string({
        required: false,
        description:
          'The webhook delivery faults in the webhook chaos grammar ("duplicate=0.1; reorder=0.2; seed=42"); "" or "none" clears; left out, they stay.',
      }),
    },
    resolve: (_root, args, ctx) => {
      const input = setChaosBody.parse(setChaosBody.body(args));
      return setChaosSetting(serviceContext(ctx), {
        faults: input.faults,
        webhookFaults: input.webhook_faults,
      });
    },
  }),
}));
