import { defineOperation } from '../operation.ts';
import { refuseIdempotentReset, resetMerchant } from './sandbox.reset.ts';
import { ResetWire, resetResource } from './sandbox.resource.ts';
import {
  SaveSnapshotBody,
  Snapshot,
  SnapshotListWire,
  SnapshotNameParam,
} from './sandbox.snapshots.resource.ts';
import type { SnapshotRow } from './sandbox.snapshots.table.ts';
import { deleteSnapshot, listSnapshots, restoreSnapshot, saveSnapshot } from './sandbox.snapshots.ts';

/** The sandbox's reset and snapshots, declared once: their REST routes and GraphQL fields. */

export const sandboxOperations = [
  defineOperation({
    name: 'resetMerchant',
    method: 'post',
    path: '/simulate/reset',
    tags: ['Simulation'],
    summary:
      'Delete every object of the merchant and put its clock back to real time, in one transaction; keeps the merchant, its keys and its webhook endpoints. Takes no Idempotency-Key',
    // Never stored for replay: the reset deletes the idempotency records.
    refuseKey: refuseIdempotentReset,
    heavy: true,
    errors: ['idempotency_key_invalid'],
    output: { name: 'Reset', wire: ResetWire, render: resetResource },
    run: (ctx) => resetMerchant(ctx),
    graphql: { returns: 'MerchantReset', reload: false },
  }),
  defineOperation({
    name: 'saveSnapshot',
    method: 'post',
    path: '/sandbox/snapshots',
    tags: ['Simulation'],
    summary:
      "Save the merchant's whole sandbox (objects, ledger, events, due work, webhook endpoints, clock) under a name; an existing snapshot of that name is replaced",
    refuseKey: refuseIdempotentReset,
    heavy: true,
    errors: ['idempotency_key_invalid', 'clock_advancing'],
    body: SaveSnapshotBody,
    output: Snapshot,
    run: (ctx, { body }) => saveSnapshot(ctx, body.name),
    graphql: { reload: false },
  }),
  defineOperation({
    name: 'listSnapshots',
    method: 'get',
    path: '/sandbox/snapshots',
    tags: ['Simulation'],
    summary: "The merchant's snapshots, by name",
    output: Snapshot,
    answer: {
      wire: SnapshotListWire,
      render: (list: SnapshotRow[], rc) => ({ data: list.map((row) => Snapshot.render(row, rc)) }),
    },
    run: (ctx) => listSnapshots(ctx),
    graphql: { name: 'snapshots', many: true },
  }),
  defineOperation({
    name: 'restoreSnapshot',
    method: 'post',
    path: '/sandbox/snapshots/{name}/restore',
    tags: ['Simulation'],
    summary:
      "Put the merchant's sandbox back to a snapshot, in one transaction: everything made since is deleted, everything saved is back, the clock as it was. Takes no Idempotency-Key",
    refuseKey: refuseIdempotentReset,
    heavy: true,
    errors: ['idempotency_key_invalid', 'clock_advancing', 'invalid_state'],
    params: SnapshotNameParam,
    output: Snapshot,
    run: (ctx, { params }) => restoreSnapshot(ctx, params.name),
    graphql: { reload: false },
  }),
  defineOperation({
    name: 'deleteSnapshot',
    method: 'delete',
    path: '/sandbox/snapshots/{name}',
    tags: ['Simulation'],
    summary: 'Delete a snapshot of the merchant',
    params: SnapshotNameParam,
    output: Snapshot,
    run: (ctx, { params }) => deleteSnapshot(ctx, params.name),
    graphql: { reload: false },
  }),
];
