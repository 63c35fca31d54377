import { systemClock } from '../../kernel/clock.ts';
import { defineOperation } from '../operation.ts';
import { ApiKeysWire, apiKeysResource } from './merchants.resource.ts';
import { refuseIdempotentRoll, rollKeys } from './merchants.service.ts';

/**
 * The merchant's operations, each declared once: its REST route and its GraphQL field. The sign-up
 * (POST /v1/merchants) is written by hand in merchants.routes.ts: it runs without a key, so without
 * a merchant, and counts sign-ups by client address.
 */

export const merchantOperations = [
  defineOperation({
    name: 'rollKeys',
    method: 'post',
    path: '/keys/roll',
    tags: ['Merchants'],
    summary:
      "Issue a new key pair and revoke the caller's keys at once; signs out every dashboard session of the merchant. Takes no Idempotency-Key",
    // Never stored for replay (the answer holds a secret key): an Idempotency-Key is refused.
    refuseKey: refuseIdempotentRoll,
    errors: ['idempotency_key_invalid'],
    output: { name: 'ApiKeys', wire: ApiKeysWire, render: apiKeysResource },
    run: (ctx) => rollKeys(ctx.db, systemClock, ctx.merchant.id),
    graphql: { returns: 'ApiKeyPair', reload: false },
  }),
];
