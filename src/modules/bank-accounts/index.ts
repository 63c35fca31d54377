import { defineModule } from '../module.ts';

/** Routing and account numbers, the ACH change codes: pure, no registry. */
export default defineModule({ name: 'bank-accounts' });
