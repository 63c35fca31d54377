import { builder } from '../../graphql/builder.ts';
import { graphqlObject, registerObjectType } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { ClockRef } from '../clock/clock.graphql.ts';
import { sandboxOperations } from './sandbox.operations.ts';
import { type ResetKind, type ResetResult, resetKinds } from './sandbox.reset.ts';
import { Snapshot } from './sandbox.snapshots.resource.ts';

const camel = (kind: string) => kind.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());

const DeletedRef = builder.objectRef<Record<ResetKind, number>>('MerchantResetDeleted').implement({
  description: 'How many rows of each kind a sandbox reset deleted.',
  fields: (t) =>
    Object.fromEntries(
      resetKinds().map(({ kind, description }) => [
        camel(kind),
        t.int({ description, resolve: (counts) => counts[kind] ?? 0 }),
      ]),
    ),
});

const ResetRef = builder.objectRef<ResetResult>('MerchantReset').implement({
  description:
    "A merchant's sandbox reset (POST /v1/simulate/reset): every object deleted and the clock back to real time. The merchant, its API keys, its dashboard sessions and its webhook endpoints (with their secrets) are kept; no event is written.",
  fields: (t) => ({
    merchantId: t.exposeString('merchantId', { description: 'The merchant whose sandbox was reset.' }),
    clock: t.expose('clock', {
      type: ClockRef,
      description: "The merchant's clock after the reset: real time, running.",
    }),
    deleted: t.expose('deleted', {
      type: DeletedRef,
      description: 'How many rows of each kind were deleted.',
    }),
  }),
});

registerObjectType('MerchantReset', ResetRef);

graphqlObject(Snapshot, {
  extra: (t) => ({
    objects: t.int({
      description: 'Rows it holds in all.',
      resolve: (row: { counts: Record<string, number> }) =>
        Object.values(row.counts).reduce((sum, n) => sum + n, 0),
    }),
    counts: t.field({
      type: 'JSONObject',
      description: 'Rows it holds, by table (collections, ledger_entries, webhook_endpoints…).',
      resolve: (row: { counts: Record<string, number> }) => row.counts,
    }),
  }),
});
mountGraphqlOperations(sandboxOperations);
