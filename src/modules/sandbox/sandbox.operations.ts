import { defineOperation } from '../operation.ts';
import { refuseIdempotentReset, resetMerchant } from './sandbox.reset.ts';
import { ResetWire, resetResource } from './sandbox.resource.ts';

/** The sandbox's reset, declared once: its REST route and its GraphQL field. */

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
];
