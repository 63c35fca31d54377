import { z } from 'zod';
import { describedValues } from '../../kernel/described-values.ts';
import type { FieldCodes } from '../../kernel/validation.ts';
import { currencyField, labelFields, moneyFieldCodes, wireAmount } from '../../kernel/wire-schemas.ts';
import { ACH_RETURN_CODES, RAILS } from '../transfers/transfers.rails.ts';
import { counterpartyAccount } from '../transfers/transfers.schema.ts';
import { INBOUND_STATES, type InboundState } from './inbound-transfers.machine.ts';

export const createInboundTransferSchema = z.strictObject({
  rail: z
    .enum(RAILS)
    .describe('ach, same_day_ach, rtp, fednow or wire (the instant rails and Fedwire carry credits only).'),
  direction: z
    .enum(['credit', 'debit'])
    .describe('credit: the originator sends the merchant money; debit: the originator pulls it (ACH only).'),
  amount: wireAmount,
  currency: currencyField(['USD'], 'bank transfers are in USD (ISO 4217 code, any case)').describe(
    'USD (bank transfers are in USD; another code is currency_unsupported).',
  ),
  originator: counterpartyAccount.describe(
    "The outside account the entry comes from (only its account number's last 4 digits are kept).",
  ),
  sec_code: z.enum(['PPD', 'CCD', 'WEB']).optional().describe('ACH only (default CCD).'),
  reference: labelFields.reference.describe(
    "The merchant's own reference: 1-100 characters of A-Z a-z 0-9 . _ : -.",
  ),
  description: labelFields.description.describe('A free-text description, up to 1000 characters.'),
  metadata: labelFields.metadata,
});

export const createInboundTransferFieldCodes: FieldCodes = {
  ...moneyFieldCodes,
  originator: 'parameter_invalid',
};

export type CreateInboundTransferInput = z.output<typeof createInboundTransferSchema>;

export const returnInboundTransferSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .meta({ enum: [...ACH_RETURN_CODES] })
    .describe(
      'The Nacha return code (R01 … R85); only codes a receiving bank may use for this direction and SEC code, within their time frame.',
    ),
});

export type ReturnInboundTransferInput = z.output<typeof returnInboundTransferSchema>;

export const listInboundTransfersQuery = {
  rail: z.enum(RAILS).optional().describe('Only inbound transfers on this rail.'),
  state: z
    .string()
    .max(32)
    .optional()
    .describe(
      `Only inbound transfers in this state (${INBOUND_STATES.join(', ')}); any other value matches none.`,
    ),
};

export const InboundTransferStateValues = describedValues(
  'InboundTransferState',
  'The state of an inbound transfer.',
  {
    pending: 'ACH: sent by the originator, travelling in its FedACH window (a credit is in pending).',
    settled: 'ACH: settled (a credit is available; a debit has taken the money).',
    returned: 'ACH: sent back by the merchant with a Nacha return code.',
    completed: 'RTP or FedNow: the credit arrived and is available (irrevocable).',
  } satisfies Record<InboundState, string>,
);

export const InboundTransferDirectionValues = describedValues(
  'InboundTransferDirection',
  'Which way an inbound transfer moves money.',
  {
    credit: 'The originator sends the merchant money.',
    debit: "The originator pulls money from the merchant's account (ACH only).",
  },
);
