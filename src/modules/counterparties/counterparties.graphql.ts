import { builder } from '../../graphql/builder.ts';
import {
  listQueryOf,
  mutationsOf,
  nullIfNotFound,
  serviceContext,
  toConnection,
} from '../../graphql/context.ts';
import { type BankAccountType, BankAccountTypeEnum, describedEnum } from '../../graphql/enums.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { IDEMPOTENCY_KEY, METADATA, STORED_METADATA, UPDATED_AT } from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import {
  CHANGE_CODES,
  type CorrectedData,
  changeCodeTitle,
  REFUSAL_CODES,
} from '../bank-accounts/bank-accounts.corrections.ts';
import { createCounterpartySchema } from './counterparties.schema.ts';
import type { CounterpartyCorrection, CounterpartyRow } from './counterparties.service.ts';
import {
  counterpartiesByIds,
  createCounterparty,
  getCounterparty,
  listCounterparties,
} from './counterparties.service.ts';

const titleOf = (code: string) => `${changeCodeTitle(code) ?? code}.`;

export const NocChangeCodeEnum = describedEnum(
  'AchChangeCode',
  'A Nacha change code: what a notification of change corrects (C01-C14; Sandbank sends C01-C07, C09 and C13).',
  Object.fromEntries(CHANGE_CODES.map((code) => [code, titleOf(code)])),
);

export const NocRefusalCodeEnum = describedEnum(
  'AchRefusedNocCode',
  'A refused-NOC code (C61-C69): why the ODFI sent a notification of change back.',
  Object.fromEntries(REFUSAL_CODES.map((code) => [code, titleOf(code)])),
);

export const CorrectedDataRef = builder.objectRef<CorrectedData>('NocCorrectedData').implement({
  description: 'The corrected data of a notification of change: the fields its code corrects (others null).',
  fields: (t) => ({
    routingNumber: t.string({
      nullable: true,
      description: 'The corrected routing number.',
      resolve: (d) => d.routing_number ?? null,
    }),
    accountNumberLast4: t.string({
      nullable: true,
      description: 'The last 4 digits of the corrected account number (never shown in full, as elsewhere).',
      resolve: (d) => d.account_number?.slice(-4) ?? null,
    }),
    accountType: t.field({
      type: BankAccountTypeEnum,
      nullable: true,
      description: 'The account type the corrected transaction code posts to.',
      resolve: (d) => (d.account_type ?? null) as BankAccountType | null,
    }),
    transactionCode: t.string({
      nullable: true,
      description: 'The corrected ACH transaction code (22/27/32/37).',
      resolve: (d) => d.transaction_code ?? null,
    }),
    name: t.string({
      nullable: true,
      description: "The receiver's name as the RDFI holds it.",
      resolve: (d) => d.name ?? null,
    }),
    individualId: t.string({
      nullable: true,
      description: "The receiver's corrected identification number.",
      resolve: (d) => d.individual_id ?? null,
    }),
    addendaInformation: t.string({
      nullable: true,
      description: 'The corrected payment-related information.',
      resolve: (d) => d.addenda_information ?? null,
    }),
  }),
});

const CorrectionRef = builder.objectRef<CounterpartyCorrection>('CounterpartyCorrection').implement({
  description: 'A correction a saved counterparty received from a notification of change.',
  fields: (t) => ({
    code: t.field({ type: NocChangeCodeEnum, description: 'The change code.', resolve: (c) => c.code }),
    reason: t.exposeString('reason', { description: 'The title of the change code.' }),
    transfer: t.exposeString('transferId', { description: 'The transfer whose NOC carried it.' }),
    correctedData: t.field({
      type: CorrectedDataRef,
      description: 'What changed.',
      resolve: (c) => c.corrected as CorrectedData,
    }),
    receivedAt: t.field({
      type: 'DateTime',
      description: 'When it was applied.',
      resolve: (c) => new Date(c.receivedAt),
    }),
    refusedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the NOC was refused and this reverted; null otherwise.',
      resolve: (c) => (c.refusedAt ? new Date(c.refusedAt) : null),
    }),
    refusalCode: t.field({
      type: NocRefusalCodeEnum,
      nullable: true,
      description: 'The refused-NOC code; null unless refused.',
      resolve: (c) => c.refusalCode,
    }),
  }),
});

export const CounterpartyRef = builder.objectRef<CounterpartyRow>('Counterparty').implement({
  description: 'A saved US bank account transfers can name; notifications of change correct it.',
  interfaces: [NodeRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'counterparty'),
  fields: (t) => ({
    name: t.exposeString('name', { description: "The account holder's name." }),
    routingNumber: t.exposeString('routingNumber', { description: 'The ABA routing number.' }),
    accountNumberLast4: t.string({
      description: 'The last 4 digits of the account number.',
      resolve: (r) => r.accountNumber.slice(-4),
    }),
    accountType: t.field({
      type: BankAccountTypeEnum,
      description: 'checking or savings.',
      resolve: (r) => r.accountType,
    }),
    individualId: t.exposeString('individualId', {
      nullable: true,
      description: "The receiver's identification number; null when none.",
    }),
    corrections: t.field({
      type: [CorrectionRef],
      description: 'The corrections it received, oldest first.',
      resolve: (r) => r.corrections,
    }),
    metadata: t.field({ type: 'JSONObject', description: STORED_METADATA, resolve: (r) => r.metadata }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was saved.', resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: UPDATED_AT, resolve: (r) => r.updatedAt }),
  }),
});

nodeKind('counterparty', CounterpartyRef, counterpartiesByIds);

const createBody = wireInput('createCounterparty', createCounterpartySchema);
const counterpartyMutation = mutationsOf(getCounterparty);

builder.queryFields((t) => ({
  counterparty: t.field({
    type: CounterpartyRef,
    nullable: true,
    description:
      'A saved counterparty by its id (GET /v1/counterparties/{id}); null when the merchant has none.',
    args: { id: t.arg.id({ required: true, description: "The counterparty's id (cpty_…)." }) },
    resolve: (_root, args, ctx) => nullIfNotFound(getCounterparty(serviceContext(ctx), String(args.id))),
  }),
  counterparties: t.connection({
    type: CounterpartyRef,
    description: 'Saved counterparties, newest first (first: 1-100, default 20).',
    resolve: async (_root, args, ctx) =>
      toConnection(await listCounterparties(serviceContext(ctx), listQueryOf(args)), args),
  }),
}));

builder.mutationFields((t) => ({
  createCounterparty: t.field({
    type: CounterpartyRef,
    errors: { types: [SandbankError] },
    description: 'POST /v1/counterparties: save a bank account transfers can name.',
    args: {
      name: t.arg.string({ required: true, description: "The account holder's name." }),
      routingNumber: t.arg.string({
        required: true,
        description: 'The ABA routing number (9 digits, checksummed).',
      }),
      accountNumber: t.arg.string({ required: true, description: 'The account number (4-17 digits).' }),
      accountType: t.arg({ type: BankAccountTypeEnum, description: 'checking (default) or savings.' }),
      individualId: t.arg.string({
        description: "The receiver's identification number (15 characters at most).",
      }),
      metadata: t.arg({ type: 'JSONObject', description: METADATA }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, args, ctx) => {
      const body = createBody.body(args);
      return counterpartyMutation(ctx, 'createCounterparty', args.idempotencyKey, body, (svc) =>
        createCounterparty(svc, createBody.parse(body)),
      );
    },
  }),
}));
