import { expect } from 'vitest';
import type { TestApp, TestMerchant } from '../../support/harness.ts';
import type { Ids } from './rest-cases.ts';

type Json = Record<string, unknown>;

const ROUTING = '021000021';
const account = { routing_number: ROUTING, account_number: '000123456789', account_type: 'checking' };
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

/**
 * One live object of every kind the POST routes act on, so that generated requests reach each
 * operation's own validation with an id that exists (an unknown id would stop them earlier).
 */
export async function createObjects(t: TestApp, m: TestMerchant): Promise<Ids> {
  async function post(path: string, body: Json): Promise<Json> {
    const res = await t.rest('POST', path, { key: m.secretKey, body });
    expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  }
  await post('/v1/simulate/balance/top_up', { amount: '100000.00', currency: 'USD' });
  const collection = await post('/v1/collect', { amount: '10.00', currency: 'USD', reference: 'fuzz-col' });
  const payment = await post('/v1/card_payments', { amount: '10.00', currency: 'USD', card, capture: false });
  const transfer = await post('/v1/transfers', {
    rail: 'ach',
    direction: 'debit',
    amount: '5.00',
    currency: 'USD',
    counterparty: { name: 'Fuzz', ...account },
  });
  const payout = await post('/v1/payouts', {
    amount: '5.00',
    currency: 'USD',
    method: 'ach',
    destination: { name: 'Fuzz', ...account },
  });
  const virtualCard = await post('/v1/virtual_cards', { brand: 'visa', cardholder_name: 'Fuzz' });
  const authorization = await post(`/v1/simulate/virtual_cards/${virtualCard.id}/authorizations`, {
    amount: '1.00',
    currency: 'USD',
    merchant: { name: 'Fuzz Cafe', mcc: '5814' },
  });
  const quote = await post('/v1/fx/quotes', {
    source_currency: 'USD',
    target_currency: 'EUR',
    source_amount: '5.00',
  });
  const settlement = await post('/v1/fx/settlements', {
    target_currency: 'EUR',
    source_amount: '5.00',
    destination: { name: 'Fuzz', iban: 'DE89370400440532013000' },
  });
  const endpoint = await post('/v1/webhook_endpoints', {
    url: 'http://127.0.0.1:9/hook',
    enabled_events: ['*'],
  });
  const captured = await post('/v1/card_payments', { amount: '10.00', currency: 'USD', card });
  const dispute = await post(`/v1/simulate/card_payments/${captured.id}/dispute`, {});
  const inbound = await post('/v1/simulate/inbound_transfers', {
    rail: 'ach',
    direction: 'debit',
    amount: '5.00',
    currency: 'USD',
    originator: { name: 'Fuzz Originator', routing_number: ROUTING, account_number: '000987654321' },
  });
  const counterparty = await post('/v1/counterparties', { name: 'Fuzz', ...account });
  const paymentRequest = await post('/v1/simulate/payment_requests', {
    rail: 'rtp',
    amount: '5.00',
    currency: 'USD',
    requester: { name: 'Fuzz Requester', ...account },
  });
  const statement = await post('/v1/statements', { currency: 'USD', date: '2026-01-02' });
  const expected = await post('/v1/expected_payments', {
    direction: 'credit',
    amount: '5.00',
    currency: 'USD',
    days: 3,
  });
  const events = await t.rest('GET', '/v1/events?limit=1', { key: m.secretKey });
  const event = (events.body.data as Json[])[0] as Json;
  await post('/v1/sandbox/snapshots', { name: 'fuzz-seeded' });
  const bySegment: Record<string, unknown> = {
    snapshots: 'fuzz-seeded',
    collections: collection.reference,
    payment_attempts: payment.id,
    card_payments: payment.id,
    transfers: transfer.id,
    payouts: payout.id,
    virtual_cards: virtualCard.id,
    issuing_authorizations: authorization.id,
    fx_settlements: settlement.id,
    fx_quotes: quote.id,
    webhook_endpoints: endpoint.id,
    events: event.id,
    disputes: dispute.id,
    inbound_transfers: inbound.id,
    payment_requests: paymentRequest.id,
    statements: statement.id,
    expected_payments: expected.id,
    // A window the merchant sent nothing in: its file is not found (a 404 like any unknown id).
    ach_files: 'achf_sent_20260105T153000000Z',
    // The fuzz transfer is an ACH entry: it has no ISO 20022 messages.
    iso20022_messages: `${transfer.id}.pacs.008`,
    counterparties: counterparty.id,
  };
  return {
    idFor(template) {
      const segment = /\/([a-z_]+)\/\{\w+\}/.exec(template)?.[1] ?? '';
      const id = bySegment[segment];
      if (typeof id !== 'string') throw new Error(`No object for ${template}`);
      return id;
    },
  };
}
