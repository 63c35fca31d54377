import createClient from 'openapi-fetch';
import type { paths } from './sandbank-api.ts';

/**
 * A typed client for Sandbank, generated from its OpenAPI document:
 *
 *   npx openapi-typescript http://localhost:3000/v1/openapi.json -o sandbank-api.ts
 *
 * and called with openapi-fetch. Bodies, answers and errors are all typed from the document: the
 * flow below has no cast. The test suite generates the types from a live server, type-checks this
 * file and runs it.
 */
export async function cardPaymentFlow(baseUrl: string): Promise<string[]> {
  const log: string[] = [];
  const signup = createClient<paths>({ baseUrl });
  const merchant = await signup.POST('/merchants', { body: { name: 'Typed client' } });
  if (merchant.error) throw new Error(`sign-up refused: ${merchant.error.error.message}`);
  log.push(`merchant ${merchant.data.id}`);

  const api = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${merchant.data.secret_key}` },
  });

  const authorized = await api.POST('/card_payments', {
    body: {
      amount: '25.00',
      currency: 'usd',
      capture: false,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
      metadata: { order: 'A-1' },
    },
  });
  if (authorized.error) throw new Error(`authorization refused: ${authorized.error.error.code}`);
  const payment = authorized.data;
  log.push(`${payment.id} ${payment.state} ${payment.amount} ${payment.currency}`);

  const captured = await api.POST('/card_payments/{id}/capture', {
    params: { path: { id: payment.id } },
    body: { amount: 20 },
  });
  if (captured.error) throw new Error(`capture refused: ${captured.error.error.code}`);
  log.push(`${captured.data.state} ${captured.data.amount_captured}`);

  // A second capture is refused: the error is typed too (its code is one of the registry's).
  const again = await api.POST('/card_payments/{id}/capture', { params: { path: { id: payment.id } } });
  if (again.error) log.push(`${again.response.status} ${again.error.error.code}`);

  const refunded = await api.POST('/card_payments/{id}/refunds', {
    params: { path: { id: payment.id } },
    body: { amount: '5.00', reason: 'requested_by_customer' },
  });
  if (refunded.error) throw new Error(`refund refused: ${refunded.error.error.code}`);
  log.push(
    `refund ${refunded.data.state} ${refunded.data.amount}; payment ${refunded.data.card_payment.state}`,
  );

  const declined = await api.POST('/card_payments', {
    body: {
      amount: 10,
      currency: 'USD',
      card: { number: '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' },
    },
  });
  if (declined.error) log.push(`${declined.error.error.code} ${declined.error.error.decline_code ?? ''}`);

  const page = await api.GET('/card_payments', { params: { query: { limit: 10 } } });
  if (page.error) throw new Error(`list refused: ${page.error.error.code}`);
  log.push(`listed ${page.data.data.length}, more: ${page.data.has_more}`);
  return log;
}
