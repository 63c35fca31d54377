/** GraphQL of notifications of change: a transfer's NOCs, and the simulate and refuse mutations. */
import { builder } from '../../graphql/builder.ts';
import { mutationsOf } from '../../graphql/context.ts';
import { BankAccountTypeEnum } from '../../graphql/enums.ts';
import { IDEMPOTENCY_KEY } from '../../graphql/texts.ts';
import { wireInput } from '../../graphql/wire-input.ts';
import { SandbankError } from '../../kernel/errors.ts';
import type { NocRecord } from '../bank-accounts/bank-accounts.corrections.ts';
import {
  CorrectedDataRef,
  NocChangeCodeEnum,
  NocRefusalCodeEnum,
} from '../counterparties/counterparties.graphql.ts';
import { TransferRef } from '../transfers/transfers.graphql.ts';
import { getTransfer } from '../transfers/transfers.read.ts';
import { refuseNocSchema, simulateNocSchema } from './nocs.schema.ts';
import { nocSteps } from './nocs.service.ts';

const NotificationOfChangeRef = builder.objectRef<NocRecord>('NotificationOfChange').implement({
  description: 'A notification of change the receiving bank sent about an ACH entry.',
  fields: (t) => ({
    code: t.field({ type: NocChangeCodeEnum, description: 'The change code.', resolve: (r) => r.code }),
    reason: t.exposeString('reason', { description: 'The title of the change code.' }),
    correctedData: t.field({
      type: CorrectedDataRef,
      description: 'What to correct.',
      resolve: (r) => r.corrected_data,
    }),
    counterparty: t.string({
      nullable: true,
      description: 'The saved counterparty it corrected; null for an inline account.',
      resolve: (r) => r.counterparty,
    }),
    receivedAt: t.field({
      type: 'DateTime',
      description: 'When it arrived.',
      resolve: (r) => new Date(r.received_at),
    }),
    refuseBy: t.field({
      type: 'DateTime',
      description: 'The last instant the merchant may refuse it.',
      resolve: (r) => new Date(r.refuse_by),
    }),
    refusedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was refused; null otherwise.',
      resolve: (r) => (r.refused_at ? new Date(r.refused_at) : null),
    }),
    refusalCode: t.field({
      type: NocRefusalCodeEnum,
      nullable: true,
      description: 'The refused-NOC code; null unless refused.',
      resolve: (r) => r.refusal_code,
    }),
    refusalReason: t.string({
      nullable: true,
      description: 'The title of the refusal code; null unless refused.',
      resolve: (r) => r.refusal_reason,
    }),
  }),
});

builder.objectFields(TransferRef, (t) => ({
  notificationsOfChange: t.field({
    type: [NotificationOfChangeRef],
    description: 'The notifications of change the receiving bank sent about this ACH entry (at most one).',
    resolve: (row) => row.notificationsOfChange,
  }),
}));

const CorrectedDataInput = builder.inputType('NocCorrectedDataInput', {
  description: 'Corrected values of a simulated NOC (only the fields its code corrects; others are derived).',
  fields: (t) => ({
    routingNumber: t.string({ description: 'The corrected routing number.' }),
    accountNumber: t.string({ description: 'The corrected account number.' }),
    accountType: t.field({ type: BankAccountTypeEnum, description: 'The corrected account type.' }),
    name: t.string({ description: 'The corrected name (22 characters at most).' }),
    individualId: t.string({ description: 'The corrected individual id (15 characters at most).' }),
    addendaInformation: t.string({ description: 'The corrected payment-related information.' }),
  }),
});

const nocBody = wireInput('simulateTransferNotificationOfChange', simulateNocSchema, undefined, {
  path: ['id'],
});
const refuseBody = wireInput('refuseTransferNotificationOfChange', refuseNocSchema, undefined, {
  path: ['id'],
});
const transferMutation = mutationsOf(getTransfer);

builder.mutationFields((t) => ({
  simulateTransferNotificationOfChange: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description:
      'POST /v1/simulate/transfers/{id}/notification_of_change: the RDFI sends an NOC about a settled ACH transfer.',
    args: {
      id: t.arg.id({ required: true, description: "The transfer's id." }),
      code: t.arg({ type: NocChangeCodeEnum, required: true, description: 'The change code.' }),
      correctedData: t.arg({
        type: CorrectedDataInput,
        description: 'Corrected values (derived when left out).',
      }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, a, ctx) => {
      const body = nocBody.body(a);
      return transferMutation(
        ctx,
        'simulateTransferNotificationOfChange',
        a.idempotencyKey,
        { id: a.id, ...body },
        (svc) => nocSteps.receive(svc, String(a.id), nocBody.parse(body)),
      );
    },
  }),
  refuseTransferNotificationOfChange: t.field({
    type: TransferRef,
    errors: { types: [SandbankError] },
    description:
      "POST /v1/transfers/{id}/notification_of_change/refuse: refuse the transfer's NOC; its correction is reverted.",
    args: {
      id: t.arg.id({ required: true, description: "The transfer's id." }),
      code: t.arg({
        type: NocRefusalCodeEnum,
        required: true,
        description: 'The refused-NOC code (C61-C69).',
      }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY }),
    },
    resolve: (_root, a, ctx) => {
      const body = refuseBody.body(a);
      return transferMutation(
        ctx,
        'refuseTransferNotificationOfChange',
        a.idempotencyKey,
        { id: a.id, ...body },
        (svc) => nocSteps.refuse(svc, String(a.id), refuseBody.parse(body)),
      );
    },
  }),
}));
