import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { SetChaosSchema } from './chaos.resource.ts';
import { type ChaosSetting, getChaosSetting, setChaosSetting } from './chaos.service.ts';

const ChaosRef = builder.objectRef<ChaosSetting>('Chaos').implement({
  description:
    "The merchant's chaos setting (GET /v1/simulate/chaos): faults injected into its keyed REST requests before they run, to test a client's retries and timeouts. See docs/chaos.md.",
  fields: (t) => ({
    faults: t.exposeString('faults', {
      nullable: true,
      description:
        'The faults in the chaos grammar, canonical form ("latency=200ms; error=0.3; status=503; seed=42"); null when none.',
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
      'POST /v1/simulate/chaos: set the faults injected into every keyed REST request of the merchant; "" or "none" clears them.',
    args: {
      faults: t.arg.string({
        required: true,
        description:
          'The faults in the chaos grammar ("error=0.3; status=503; seed=42"); "" or "none" clears.',
      }),
    },
    resolve: (_root, args, ctx) =>
      setChaosSetting(serviceContext(ctx), setChaosBody.parse(setChaosBody.body(args)).faults),
  }),
}));
