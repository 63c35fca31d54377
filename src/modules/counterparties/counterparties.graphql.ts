import { builder } from '../../graphql/builder.ts';
import { descriptionOf, graphqlObject } from '../../graphql/derive.ts';
import { type BankAccountType, BankAccountTypeEnum, enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { type CorrectedData, CorrectedDataWire } from '../bank-accounts/bank-accounts.corrections.ts';
import { counterpartyOperations } from './counterparties.operations.ts';
import { CORRECTIONS, Counterparty, CounterpartyCorrectionWire } from './counterparties.resource.ts';
import { AchChangeCodeValues, AchRefusedNocCodeValues } from './counterparties.schema.ts';
import type { CounterpartyCorrection, CounterpartyRow } from './counterparties.service.ts';
import { counterpartiesByIds } from './counterparties.service.ts';

export const NocChangeCodeEnum = enumOf(AchChangeCodeValues);

export const NocRefusalCodeEnum = enumOf(AchRefusedNocCodeValues);

const corrected = CorrectedDataWire.shape;
type CorrectedText = 'routing_number' | 'transaction_code' | 'name' | 'individual_id' | 'addenda_information';

export const CorrectedDataRef = builder.objectRef<CorrectedData>('NocCorrectedData').implement({
  description: CorrectedDataWire.description ?? '',
  fields: (t) => {
    // A corrected value, or null when the NOC's code does not correct it (REST leaves it out).
    const text = (key: CorrectedText) =>
      t.string({
        nullable: true,
        description: descriptionOf(corrected[key]) ?? '',
        resolve: (d) => d[key] ?? null,
      });
    return {
      routingNumber: text('routing_number'),
      accountNumberLast4: t.string({
        nullable: true,
        description: 'The last 4 digits of the corrected account number (never shown in full, as elsewhere).',
        resolve: (d) => d.account_number?.slice(-4) ?? null,
      }),
      accountType: t.field({
        type: BankAccountTypeEnum,
        nullable: true,
        description: descriptionOf(corrected.account_type) ?? '',
        resolve: (d) => (d.account_type ?? null) as BankAccountType | null,
      }),
      transactionCode: text('transaction_code'),
      name: text('name'),
      individualId: text('individual_id'),
      addendaInformation: text('addenda_information'),
    };
  },
});

const correction = CounterpartyCorrectionWire.shape;
const describe = (key: keyof typeof correction) => descriptionOf(correction[key]) ?? '';

const CorrectionRef = builder.objectRef<CounterpartyCorrection>('CounterpartyCorrection').implement({
  description: CounterpartyCorrectionWire.description ?? '',
  fields: (t) => ({
    code: t.expose('code', { type: NocChangeCodeEnum, description: describe('code') }),
    reason: t.exposeString('reason', { description: describe('reason') }),
    transfer: t.exposeString('transferId', { description: describe('transfer') }),
    correctedData: t.field({
      type: CorrectedDataRef,
      description: 'What changed.',
      resolve: (c) => c.corrected as CorrectedData,
    }),
    receivedAt: t.field({
      type: 'DateTime',
      description: describe('received_at'),
      resolve: (c) => new Date(c.receivedAt),
    }),
    refusedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: describe('refused_at'),
      resolve: (c) => (c.refusedAt ? new Date(c.refusedAt) : null),
    }),
    refusalCode: t.expose('refusalCode', {
      type: NocRefusalCodeEnum,
      nullable: true,
      description: describe('refusal_code'),
    }),
  }),
});

export const CounterpartyRef = graphqlObject<CounterpartyRow>(Counterparty, {
  interfaces: [NodeRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'counterparty'),
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    accountNumberLast4: t.string({
      description: 'The last 4 digits of the account number.',
      resolve: (row: CounterpartyRow) => row.accountNumber.slice(-4),
    }),
    corrections: t.field({
      type: [CorrectionRef],
      description: CORRECTIONS,
      resolve: (row: CounterpartyRow) => row.corrections,
    }),
  }),
});

nodeKind('counterparty', CounterpartyRef, counterpartiesByIds);
mountGraphqlOperations(counterpartyOperations);
