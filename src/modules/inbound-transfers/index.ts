import { defineModule } from '../module.ts';
import { achInboundMachine, instantInboundMachine } from './inbound-transfers.machine.ts';
import { inboundTransferOperations } from './inbound-transfers.operations.ts';
import { inboundRecipes } from './inbound-transfers.recipes.ts';
import { InboundTransferWire } from './inbound-transfers.resource.ts';
import { INBOUND_SETTLE_JOB, settleInboundJob } from './inbound-transfers.service.ts';
import { inboundTransfers } from './inbound-transfers.table.ts';
import { arriveInboundWireJob, INBOUND_WIRE_JOB } from './inbound-transfers.wire.ts';

/** The prefixes of its ids (typed: src/kernel/ids.ts). */
const ids = { inboundTransfer: 'itr' } as const;
type InboundTransfersIds = typeof ids;
declare module '../../kernel/ids.ts' {
  interface IdPrefixes extends InboundTransfersIds {}
}

/** Money from outside originators: ACH credits and debits, RTP and FedNow credits. */
export default defineModule({
  name: 'inbound-transfers',
  tables: [inboundTransfers],
  ids,
  operations: inboundTransferOperations,
  graphql: () => import('./inbound-transfers.graphql.ts'),
  jobs: { [INBOUND_SETTLE_JOB]: settleInboundJob, [INBOUND_WIRE_JOB]: arriveInboundWireJob },
  recipes: inboundRecipes,
  reset: [
    {
      kind: 'inbound_transfers',
      table: 'inbound_transfers',
      order: 90,
      lock: true,
      description: 'Inbound transfers from outside originators.',
    },
  ],
  events: [
    {
      object: 'inbound_transfer',
      machines: [achInboundMachine, instantInboundMachine],
      createdEvent: true,
      wire: InboundTransferWire,
      order: 70,
    },
  ],
});
