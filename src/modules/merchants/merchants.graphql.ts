import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { registerObjectType } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import type { MerchantRef } from '../context.ts';
import { merchantOperations } from './merchants.operations.ts';
import type { KeyPair } from './merchants.service.ts';

const KeyPairRef = builder.objectRef<KeyPair>('ApiKeyPair').implement({
  description:
    "A new key pair; the dashboard's API keys page reveals the secret key again while it is in use.",
  fields: (t) => ({
    secretKey: t.exposeString('secretKey', {
      description: 'The new secret key (sk_test_…): every operation.',
    }),
    publicKey: t.exposeString('publicKey', {
      description: 'The new public key (pk_test_…): tokenization in browsers only.',
    }),
  }),
});

const MerchantType = builder.objectRef<MerchantRef>('Merchant').implement({
  description: 'A sandbox merchant: the owner of every object its keys create.',
  interfaces: [NodeRef],
  fields: (t) => ({
    name: t.exposeString('name', { description: "The merchant's name." }),
  }),
});

/** A merchant is visible to itself only: another merchant's id is not found. */
nodeKind('merchant', MerchantType, async (svc, ids) => (ids.includes(svc.merchant.id) ? [svc.merchant] : []));

builder.queryFields((t) => ({
  merchant: t.field({
    type: MerchantType,
    description: 'The merchant the API key belongs to.',
    resolve: (_root, _args, ctx) => serviceContext(ctx).merchant,
  }),
}));

registerObjectType('ApiKeyPair', KeyPairRef);
mountGraphqlOperations(merchantOperations);
