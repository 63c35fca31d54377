import { defineModule } from '../module.ts';
import { purgeExpiredKeys } from './idempotency.service.ts';
import { idempotencyKeys } from './idempotency.table.ts';

/** Stored outcomes of keyed requests. */
export default defineModule({
  name: 'idempotency',
  tables: [idempotencyKeys],
  retention: [{ name: 'idempotency keys', purge: purgeExpiredKeys }],
  reset: [
    {
      kind: 'idempotency_keys',
      table: 'idempotency_keys',
      order: 230,
      description: 'Stored Idempotency-Key answers (the same keys can be sent again).',
    },
  ],
});
