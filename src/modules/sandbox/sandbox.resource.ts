import { z } from 'zod';
import { idOf, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import { ClockWire, clockResource } from '../clock/clock.resource.ts';
import { RESET_KINDS, type ResetKind, type ResetResult } from './sandbox.reset.ts';

export const DELETED_DESCRIPTIONS: Record<ResetKind, string> = {
  collections: 'Collections (checkouts).',
  payment_attempts: "Attempts to pay a collection's checkout.",
  card_payments: 'Card payments.',
  refunds: 'Refunds of card payments.',
  disputes: 'Disputes of card payments.',
  tokens: 'Card tokens.',
  transfers: 'Bank transfers.',
  payouts: 'Payouts.',
  inbound_transfers: 'Inbound transfers from outside originators.',
  virtual_cards: 'Virtual cards.',
  issuing_authorizations: 'Authorizations on virtual cards.',
  fx_quotes: 'FX quotes.',
  fx_conversions: 'FX conversions.',
  fx_settlements: 'FX settlements abroad.',
  ledger_accounts: 'Ledger accounts (the balances start again from nothing).',
  ledger_postings: 'Ledger postings.',
  ledger_entries: 'Ledger entries.',
  counterparties: 'Saved counterparties (bank accounts) and the corrections they received.',
  events: 'Events.',
  webhook_deliveries: 'Webhook deliveries (pending ones are never sent).',
  webhook_attempts: 'Logged webhook delivery attempts.',
  scheduled_jobs: 'Scheduled clock work (expiries, settlements, …), done or pending.',
  idempotency_keys: 'Stored Idempotency-Key answers (the same keys can be sent again).',
};

export const ResetDeletedWire = z
  .object(
    Object.fromEntries(
      RESET_KINDS.map(([kind]) => [
        kind,
        z.number().int().nonnegative().meta({ description: DELETED_DESCRIPTIONS[kind] }),
      ]),
    ) as Record<ResetKind, z.ZodNumber>,
  )
  .meta({ id: 'ResetDeleted', description: 'How many rows of each kind the reset deleted.' });

export const ResetWire = wireAnswer('reset', {
  merchant_id: idOf('merchant whose sandbox was reset'),
  clock: ClockWire,
  deleted: ResetDeletedWire,
}).meta({
  id: 'Reset',
  description:
    "A merchant's sandbox reset: every object deleted and the clock back to real time. The merchant, its API keys, its dashboard sessions and its webhook endpoints (with their secrets) are kept. No event is written.",
});

/** The API representation of a reset. */
export function resetResource(result: ResetResult): Wire<typeof ResetWire> {
  return {
    object: 'reset',
    merchant_id: result.merchantId,
    clock: clockResource(result.clock),
    deleted: result.deleted,
  };
}
