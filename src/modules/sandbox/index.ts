import { defineModule } from '../module.ts';
import { sandboxOperations } from './sandbox.operations.ts';
import { sandboxSnapshots } from './sandbox.snapshots.table.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { snapshot: 'snap' } as const;
type SandboxIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends SandboxIds {}
}

/** The reset of a merchant's sandbox, and its snapshots (saved and restored by name). */
export default defineModule({
  name: 'sandbox',
  tables: [sandboxSnapshots],
  ids,
  operations: sandboxOperations,
  graphql: () => import('./sandbox.graphql.ts'),
});
