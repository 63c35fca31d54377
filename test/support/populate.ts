/**
 * A merchant holding objects of every kind a reset deletes (and a snapshot holds), made through
 * the API: what the reset and snapshot tests compare row for row.
 */
import { expect } from 'vitest';
import { paymentAttempts } from '../../src/modules/collections/collections.table.ts';
import { stripeTestClocks } from '../../src/modules/stripe/stripe.objects.table.ts';
import type { TestApp, TestMerchant, TestResponse } from './harness.ts';

type Json = Record<string, unknown>;

export const CARD = 'card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2030&card[cvc]=123';
const ACCOUNT = 'routing_number=110000000&account_number=000123456789';

export function form(
  t: TestApp,
  m: TestMerchant,
  path: string,
  body = '',
  headers: Record<string, string> = {},
) {
  return t.rest<Json>('POST', path, {
    key: m.secretKey,
    rawBody: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export async function ok(response: Promise<TestResponse<Json>>): Promise<Json> {
  const res = await response;
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Objects of every kind a reset deletes, made through the API; returns a few ids to look up later. */
export async function populate(t: TestApp, m: TestMerchant, tag: string) {
  const endpoint = await ok(
    form(t, m, '/v1/webhook_endpoints', 'url=http://127.0.0.1:9/hook&enabled_events[]=*'),
  );
  await ok(form(t, m, '/v1/simulate/balance/top_up', 'amount=10000&currency=usd'));
  const collection = await ok(
    form(t, m, '/v1/collect', `amount=25&currency=usd&reference=${tag}-col`, {
      'idempotency-key': 'same-key',
    }),
  );
  await ok(form(t, m, `/v1/simulate/collections/${tag}-col/pay`, `method=card&${CARD}`));
  // Checkouts now record their payments as card payments and transfers; payment_attempts holds the
  // attempts of older versions, which a database may still have.
  await t.database.db.insert(paymentAttempts).values({
    id: `pa_${tag}_${m.id}`,
    merchantId: m.id,
    collectionId: String(collection.id),
    method: 'card',
    state: 'failed',
    amount: 2500n,
    currency: 'USD',
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  const token = await ok(form(t, m, '/v1/tokens', CARD));
  const payment = await ok(
    form(t, m, '/v1/card_payments', `amount=100&currency=usd&capture=false&token=${token.id}`),
  );
  await ok(form(t, m, `/v1/card_payments/${payment.id}/capture`, 'amount=60'));
  await ok(form(t, m, `/v1/card_payments/${payment.id}/refunds`, 'amount=10'));
  await ok(form(t, m, `/v1/simulate/card_payments/${payment.id}/dispute`, 'amount=5'));
  const counterparty = `counterparty[name]=Bob&counterparty[routing_number]=110000000&counterparty[account_number]=000123456789`;
  await ok(form(t, m, '/v1/transfers', `rail=ach&direction=credit&amount=5&currency=usd&${counterparty}`));
  await ok(form(t, m, '/v1/counterparties', 'name=Bob&routing_number=110000000&account_number=000123456789'));
  await ok(
    form(
      t,
      m,
      '/v1/simulate/inbound_transfers',
      `rail=ach&direction=credit&amount=7&currency=usd&${counterparty.replaceAll('counterparty[', 'originator[')}`,
    ),
  );
  await ok(
    form(
      t,
      m,
      '/v1/payment_requests',
      `rail=rtp&amount=9&currency=usd&${counterparty.replaceAll('counterparty[', 'payer[')}`,
    ),
  );
  await ok(
    form(
      t,
      m,
      '/v1/payouts',
      `amount=5&currency=usd&method=ach&destination[name]=Shop&destination[account_type]=checking&${ACCOUNT.replaceAll(/(\w+)=/g, 'destination[$1]=')}`,
    ),
  );
  const card = await ok(form(t, m, '/v1/virtual_cards', 'brand=visa&cardholder_name=Ann+Lee&currency=usd'));
  await ok(
    form(
      t,
      m,
      `/v1/simulate/virtual_cards/${card.id}/authorizations`,
      'amount=12.50&currency=usd&merchant[name]=Cafe&merchant[mcc]=5814&merchant[country]=US',
    ),
  );
  const quote = await ok(
    form(
      t,
      m,
      '/v1/fx/quotes',
      'source_currency=usd&target_currency=eur&source_amount=100&lock_duration=hour',
    ),
  );
  await ok(form(t, m, '/v1/fx/conversions', `quote_id=${quote.id}`));
  await ok(
    form(
      t,
      m,
      '/v1/fx/settlements',
      'currency=eur&amount=10&destination[name]=Anna&destination[iban]=DE89370400440532013000',
    ),
  );
  await ok(form(t, m, '/v1/statements', 'currency=usd&date=2026-01-02'));
  const expected = await ok(
    form(t, m, '/v1/expected_payments', 'direction=credit&amount=3&currency=usd&reference=POP-1&days=2'),
  );
  await ok(form(t, m, `/v1/simulate/expected_payments/${expected.id}/pay`));
  await ok(form(t, m, `/v1/webhook_endpoints/${endpoint.id}/test`));
  // Nobody listens at the endpoint: the run ends at once, every delivery refused a connection.
  await ok(form(t, m, `/v1/webhook_endpoints/${endpoint.id}/conformance_runs`, 'timeout_ms=1000&wait=true'));
  // A PaymentIntent of the Stripe dialect (served under /stripe on the main port), confirmed.
  await ok(
    form(
      t,
      m,
      '/stripe/v1/payment_intents',
      'amount=500&currency=usd&payment_method=pm_card_visa&confirm=true',
    ),
  );
  // The dialect's own objects: a customer with a saved card, a Checkout Session, a test clock, and
  // its events (written when first listed).
  await ok(form(t, m, '/stripe/v1/customers', 'email=pop@example.com&payment_method=pm_card_visa'));
  await ok(
    form(
      t,
      m,
      '/stripe/v1/checkout/sessions',
      'mode=payment&success_url=https://shop.example/ok&line_items[0][quantity]=1' +
        '&line_items[0][price_data][currency]=usd&line_items[0][price_data][unit_amount]=700' +
        '&line_items[0][price_data][product_data][name]=Tea',
    ),
  );
  // A test clock's row (made through the API it would freeze the merchant's clock).
  await t.database.db.insert(stripeTestClocks).values({
    id: `clock_${tag}_${m.id}`,
    merchantId: m.id,
    name: tag,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  await ok(t.rest<Json>('GET', '/stripe/v1/events', { key: m.secretKey }));
  // An advance runs due work and attempts the deliveries (the receiver refuses: attempts are logged).
  await ok(form(t, m, '/v1/clock/advance', 'seconds=600'));
  return { endpoint: String(endpoint.id), collection: String(collection.id), payment: String(payment.id) };
}
