import { defineModule } from '../module.ts';
import { EXPIRE_ISSUING_AUTHORIZATION_JOB } from './issuing.authorize.ts';
import { issuingAuthorizationMachine, virtualCardMachine } from './issuing.machine.ts';
import { issuingOperations } from './issuing.operations.ts';
import { authorizationRecipes, virtualCardRecipes } from './issuing.recipes.ts';
import { IssuingAuthorizationWire, VirtualCardWire } from './issuing.resource.ts';
import { expireIssuingAuthorizationJob } from './issuing.settle.ts';
import { issuingAuthorizations, virtualCards } from './issuing.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { virtualCard: 'vc', issuingAuthorization: 'iauth' } as const;
type IssuingIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends IssuingIds {}
}

/** Virtual cards, their spending controls and authorizations, the closed loop with card payments. */
export default defineModule({
  name: 'issuing',
  tables: [virtualCards, issuingAuthorizations],
  ids,
  operations: issuingOperations,
  graphql: () => import('./issuing.graphql.ts'),
  jobs: { [EXPIRE_ISSUING_AUTHORIZATION_JOB]: expireIssuingAuthorizationJob },
  recipes: [...virtualCardRecipes, ...authorizationRecipes],
  reset: [
    { kind: 'virtual_cards', table: 'virtual_cards', order: 110, lock: true, description: 'Virtual cards.' },
    {
      kind: 'issuing_authorizations',
      table: 'issuing_authorizations',
      order: 120,
      lock: true,
      description: 'Authorizations on virtual cards.',
    },
  ],
  events: [
    {
      object: 'virtual_card',
      machines: [virtualCardMachine],
      createdEvent: true,
      also: ['updated'],
      wire: VirtualCardWire,
      order: 90,
    },
    {
      object: 'issuing_authorization',
      machines: [issuingAuthorizationMachine],
      createdEvent: false,
      also: ['refunded'],
      wire: IssuingAuthorizationWire,
      order: 100,
    },
  ],
});
