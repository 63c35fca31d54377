import type { CurrencyCode } from '../../kernel/currency.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import type { ServiceContext } from '../context.ts';
import { getInboundTransfer } from '../inbound-transfers/inbound-transfers.service.ts';
import { getPaymentRequest } from '../payment-requests/payment-requests.read.ts';
import { getPayout, getTransfer } from '../transfers/transfers.read.ts';
import { pacs002, pacs004, pacs008 } from './bank-messages.pacs.ts';
import { pain013, pain014 } from './bank-messages.pain.ts';
import { counterpartyParty, merchantParty, type Payment } from './bank-messages.parties.ts';

/**
 * The ISO 20022 messages of one object, as the merchant's bank sent or received them: a credit
 * transfer on RTP, FedNow or Fedwire (a transfer, a payout, an inbound transfer) has its pacs.008,
 * the pacs.002 of its outcome and the pacs.004 of a return; a request for payment its pain.013 and
 * the pain.014 that answered it. Written from the object each time, the same for the same state.
 */
export const MESSAGE_TYPES = ['pacs.008', 'pacs.002', 'pacs.004', 'pain.013', 'pain.014'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export interface BankMessage {
  id: string;
  objectId: string;
  type: MessageType;
  /** The message's full name (pacs.008.001.08). */
  definition: string;
  direction: 'sent' | 'received';
  at: Date;
  xml: string;
}

const DEFINITIONS: Record<MessageType, string> = {
  'pacs.008': 'pacs.008.001.08',
  'pacs.002': 'pacs.002.001.10',
  'pacs.004': 'pacs.004.001.10',
  'pain.013': 'pain.013.001.07',
  'pain.014': 'pain.014.001.07',
};

const ISO_RAILS = new Set(['rtp', 'fednow', 'wire']);

const message = (
  objectId: string,
  type: MessageType,
  direction: BankMessage['direction'],
  at: Date,
  xml: string,
): BankMessage => ({
  id: `${objectId}.${type}`,
  objectId,
  type,
  definition: DEFINITIONS[type],
  direction,
  at,
  xml,
});

async function outboundTransfer(ctx: ServiceContext, id: string): Promise<BankMessage[]> {
  const row = hasPrefix(id, 'payout') ? await getPayout(ctx, id) : await getTransfer(ctx, id);
  if (!ISO_RAILS.has(row.rail)) return [];
  const payment: Payment = {
    objectId: row.id,
    rail: row.rail,
    amount: row.amount,
    currency: row.currency as CurrencyCode,
    debtor: merchantParty(ctx.merchant),
    creditor: counterpartyParty(row.counterpartyName, row.routingNumber, row.accountLast4),
    endToEndId: row.reference ?? row.id,
    remittance: row.description,
  };
  const sentAt = row.submittedAt ?? row.createdAt;
  const messages = [message(row.id, 'pacs.008', 'sent', sentAt, pacs008(payment, sentAt))];
  const settledAt = row.settledAt;
  if (settledAt)
    messages.push(
      message(row.id, 'pacs.002', 'received', settledAt, pacs002(payment, settledAt, { code: 'ACSC' })),
    );
  else if (row.state === 'rejected' || row.state === 'failed')
    messages.push(
      message(
        row.id,
        'pacs.002',
        'received',
        row.updatedAt,
        pacs002(payment, row.updatedAt, {
          code: 'RJCT',
          reason: row.outcomeCode,
        }),
      ),
    );
  if (row.returnedAt && row.returnCode)
    messages.push(
      message(
        row.id,
        'pacs.004',
        'received',
        row.returnedAt,
        pacs004(payment, row.returnedAt, row.returnCode),
      ),
    );
  return messages;
}

async function inboundTransfer(ctx: ServiceContext, id: string): Promise<BankMessage[]> {
  const row = await getInboundTransfer(ctx, id);
  if (!ISO_RAILS.has(row.rail)) return [];
  const payment: Payment = {
    objectId: row.id,
    rail: row.rail,
    amount: row.amount,
    currency: 'USD',
    debtor: counterpartyParty(row.originatorName, row.originatorRoutingNumber, row.originatorAccountLast4),
    creditor: merchantParty(ctx.merchant),
    endToEndId: row.reference ?? row.id,
    remittance: row.description,
  };
  const messages = [message(row.id, 'pacs.008', 'received', row.createdAt, pacs008(payment, row.createdAt))];
  const done = row.completedAt ?? row.settledAt;
  if (done)
    messages.push(message(row.id, 'pacs.002', 'sent', done, pacs002(payment, done, { code: 'ACSC' })));
  if (row.returnedAt && row.returnCode)
    messages.push(
      message(row.id, 'pacs.004', 'sent', row.returnedAt, pacs004(payment, row.returnedAt, row.returnCode)),
    );
  return messages;
}

async function paymentRequest(ctx: ServiceContext, id: string): Promise<BankMessage[]> {
  const row = await getPaymentRequest(ctx, id);
  const merchant = merchantParty(ctx.merchant);
  const other = counterpartyParty(
    row.counterpartyName,
    row.routingNumber,
    row.accountLast4,
    row.payToAccount,
  );
  const outbound = row.direction === 'outbound';
  const request: Payment = {
    objectId: row.id,
    rail: row.rail,
    amount: row.amount,
    currency: row.currency as CurrencyCode,
    debtor: outbound ? other : merchant,
    creditor: outbound ? merchant : other,
    endToEndId: row.reference ?? row.id,
    remittance: row.description,
  };
  const messages = [
    message(
      row.id,
      'pain.013',
      outbound ? 'sent' : 'received',
      row.createdAt,
      pain013(request, row.createdAt, row.expiresAt),
    ),
  ];
  if (row.respondedAt)
    messages.push(
      message(
        row.id,
        'pain.014',
        outbound ? 'received' : 'sent',
        row.respondedAt,
        pain014(request, row.respondedAt, {
          code: row.rejectionCode ? 'RJCT' : 'ACTC',
          reason: row.rejectionCode,
        }),
      ),
    );
  return messages;
}

/** The messages of an object, oldest first (404 for an object of another kind or merchant). */
export async function messagesOf(ctx: ServiceContext, objectId: string): Promise<BankMessage[]> {
  if (hasPrefix(objectId, 'transfer') || hasPrefix(objectId, 'payout'))
    return outboundTransfer(ctx, objectId);
  if (hasPrefix(objectId, 'inboundTransfer')) return inboundTransfer(ctx, objectId);
  if (hasPrefix(objectId, 'paymentRequest')) return paymentRequest(ctx, objectId);
  throw new SandbankError('resource_not_found', {
    param: 'object_id',
    message: `No transfer, payout, inbound transfer or request for payment ${objectId.slice(0, 60)}.`,
  });
}

/** One message by its id (`<object id>.<type>`, e.g. tr_….pacs.008). */
export async function messageById(ctx: ServiceContext, id: string): Promise<BankMessage> {
  const objectId = id.split('.')[0] ?? '';
  const found = (await messagesOf(ctx, objectId)).find((m) => m.id === id);
  if (!found)
    throw new SandbankError('resource_not_found', { message: `No ISO 20022 message ${id.slice(0, 80)}.` });
  return found;
}
