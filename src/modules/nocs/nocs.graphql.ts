/** GraphQL of notifications of change: a transfer's NOCs, and the simulate and refuse mutations. */
import { builder } from '../../graphql/builder.ts';
import { descriptionOf, graphqlInput, inputFor, registerObjectType } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { type NocRecord, NotificationOfChangeWire } from '../bank-accounts/bank-accounts.corrections.ts';
import {
  CorrectedDataRef,
  NocChangeCodeEnum,
  NocRefusalCodeEnum,
} from '../counterparties/counterparties.graphql.ts';
import { TransferRef } from '../transfers/transfers.graphql.ts';
import { nocOperations } from './nocs.operations.ts';
import { refuseNocSchema, simulateNocSchema } from './nocs.schema.ts';

const noc = NotificationOfChangeWire.shape;
const describe = (key: keyof typeof noc) => descriptionOf(noc[key]) ?? '';

const NotificationOfChangeRef = builder.objectRef<NocRecord>('NotificationOfChange').implement({
  description: NotificationOfChangeWire.description ?? '',
  fields: (t) => ({
    code: t.expose('code', { type: NocChangeCodeEnum, description: describe('code') }),
    reason: t.exposeString('reason', { description: describe('reason') }),
    correctedData: t.expose('corrected_data', { type: CorrectedDataRef, description: 'What to correct.' }),
    counterparty: t.exposeString('counterparty', { nullable: true, description: describe('counterparty') }),
    receivedAt: t.field({
      type: 'DateTime',
      description: describe('received_at'),
      resolve: (r) => new Date(r.received_at),
    }),
    refuseBy: t.field({
      type: 'DateTime',
      description: describe('refuse_by'),
      resolve: (r) => new Date(r.refuse_by),
    }),
    refusedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: describe('refused_at'),
      resolve: (r) => (r.refused_at ? new Date(r.refused_at) : null),
    }),
    refusalCode: t.expose('refusal_code', {
      type: NocRefusalCodeEnum,
      nullable: true,
      description: describe('refusal_code'),
    }),
    refusalReason: t.exposeString('refusal_reason', {
      nullable: true,
      description: describe('refusal_reason'),
    }),
  }),
});

builder.objectFields(TransferRef, (t) => ({
  notificationsOfChange: t.expose('notificationsOfChange', {
    type: [NotificationOfChangeRef],
    description:
      'The notifications of change the receiving bank sent about this ACH entry, latest last: one, and after a refused one possibly a corrected one.',
  }),
}));

// The codes are enums on GraphQL (REST checks them after the entry's state), and the corrected
// data an input object of its own.
const correctedData = simulateNocSchema.shape.corrected_data.unwrap();
inputFor(simulateNocSchema.shape.code, NocChangeCodeEnum);
inputFor(refuseNocSchema.shape.code, NocRefusalCodeEnum);
inputFor(
  correctedData,
  graphqlInput(
    'NocCorrectedDataInput',
    'Corrected values of a simulated NOC (only the fields its code corrects; others are derived).',
    correctedData,
  ),
);
registerObjectType('Transfer', TransferRef);
mountGraphqlOperations(nocOperations);
