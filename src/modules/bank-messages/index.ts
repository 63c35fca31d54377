import { defineModule } from '../module.ts';
import { bankMessageOperations } from './bank-messages.operations.ts';

/** The ISO 20022 messages of credit transfers (pacs.008, pacs.002, pacs.004) and requests for payment (pain.013, pain.014). */
export default defineModule({
  name: 'bank-messages',
  operations: bankMessageOperations,
  graphql: () => import('./bank-messages.graphql.ts'),
});
