import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { type KeyPair, refuseIdempotentRoll, rollKeys } from './merchants.service.ts';

const KeyPairRef = builder.objectRef<KeyPair>('ApiKeyPair').implement({
  description: 'A new key pair, shown once: keys are stored hashed.',
  fields: (t) => ({
    secretKey: t.exposeString('secretKey'),
    publicKey: t.exposeString('publicKey'),
  }),
});

builder.mutationFields((t) => ({
  rollKeys: t.field({
    type: KeyPairRef,
    errors: { types: [SandbankError] },
    description:
      "Issues a new key pair and revokes the caller's keys at once (POST /v1/keys/roll); signs out every dashboard session of the merchant.",
    resolve: async (_root, _args, ctx) => {
      refuseIdempotentRoll(ctx.idempotencyKey);
      const svc = serviceContext(ctx);
      return rollKeys(svc.db, systemClock, svc.merchant.id);
    },
  }),
}));
