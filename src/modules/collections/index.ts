import { defineModule } from '../module.ts';
import { collectionMachine } from './collections.machine.ts';
import { collectionOperations } from './collections.operations.ts';
import { collectionRecipes } from './collections.recipes.ts';
import { CollectionWire } from './collections.resource.ts';
import { COLLECTION_EXPIRY_JOB, expireCollectionJob } from './collections.service.ts';
import { collections, paymentAttempts } from './collections.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { collection: 'col', paymentAttempt: 'pay' } as const;
type CollectionsIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends CollectionsIds {}
}

/** Collections: a checkout to pay, by card or bank, and its attempts. */
export default defineModule({
  name: 'collections',
  tables: [collections, paymentAttempts],
  ids,
  operations: collectionOperations,
  graphql: () => import('./collections.graphql.ts'),
  jobs: { [COLLECTION_EXPIRY_JOB]: expireCollectionJob },
  recipes: collectionRecipes,
  reset: [
    {
      kind: 'collections',
      table: 'collections',
      order: 10,
      lock: true,
      description: 'Collections (checkouts).',
    },
    {
      kind: 'payment_attempts',
      table: 'payment_attempts',
      order: 20,
      description: "Attempts to pay a collection's checkout.",
    },
  ],
  events: [
    {
      object: 'collection',
      machines: [collectionMachine],
      createdEvent: true,
      wire: CollectionWire,
      order: 10,
    },
  ],
});
