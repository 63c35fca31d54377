import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_REGISTRY } from '../../../src/kernel/errors.ts';
import { cardPayments } from '../../../src/modules/card-payments/card-payments.table.ts';
import { createTestApp, type TestApp, type TestMerchant, type TestResponse } from '../../support/harness.ts';
import { listenOnLoopback } from '../fuzz/http-client.ts';

/**
 * Form bodies (application/x-www-form-urlencoded, in Stripe's bracket notation) on every POST
 * operation: read into the body JSON would send, so validated by the same schema, refused with the
 * same errors, and one request with their JSON twin under an Idempotency-Key.
 */

type Json = Record<string, unknown>;

let t: TestApp;
let m: TestMerchant;
/** A merchant of its own for rolling keys (which revokes the keys it is called with). */
let roller: TestMerchant;
/** A merchant of its own for the sandbox reset (which deletes every object of its caller). */
let resetter: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Form Shop');
  roller = await t.merchant('Roller');
  resetter = await t.merchant('Resetter');
});

afterAll(async () => {
  await t?.close();
});

const FORM = 'application/x-www-form-urlencoded';

function form(
  path: string,
  body: string,
  options: { key?: string | null; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  return t.rest('POST', path, {
    key: options.key === undefined ? m.secretKey : options.key,
    rawBody: body,
    headers: { 'content-type': FORM, ...options.headers },
  });
}

function json(path: string, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  return t.rest('POST', path, { key: m.secretKey, body, headers });
}

/** The error of an answer, without the request id (which every answer has its own of). */
function errorOf(res: TestResponse): Json {
  expect((res.body as Json).status, res.text).toBe('error');
  return (res.body as { error: Json }).error;
}

const CARD = 'card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=2099&card[cvc]=123';
const CHALLENGE_CARD = 'card[number]=4000002500003155&card[exp_month]=12&card[exp_year]=2099&card[cvc]=123';
const ACCOUNT = 'routing_number=110000000&account_number=000123456789';

/** `a=1&b=2` as the fields of `name`: `name[a]=1&name[b]=2`. */
function nested(name: string, fields: string): string {
  return fields
    .split('&')
    .map((pair) => `${name}[${pair.slice(0, pair.indexOf('='))}]${pair.slice(pair.indexOf('='))}`)
    .join('&');
}

/** The header `curl -u <key>:` sends: HTTP Basic with the key as the user name and no password. */
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

describe('every POST operation takes a form body, authenticated as curl -u sk_test_…: does', () => {
  /** Ids of what earlier steps created, by name. */
  const ids: Record<string, string> = {};
  const id = (name: string) => {
    const found = ids[name];
    if (!found) throw new Error(`no ${name} yet`);
    return found;
  };
  const keep =
    (name: string, check?: (body: Json) => void) =>
    (body: Json): void => {
      check?.(body);
      ids[name] = String(body.id);
    };

  interface Step {
    /** The operation's path as the document writes it. */
    route: string;
    path: () => string | Promise<string>;
    body: string;
    status: number;
    /** The key to call with (default the secret key; null for none). */
    key?: () => string | null;
    /** What to check in the answer, and what to remember from it. */
    check?: (body: Json) => void;
  }

  const credit = `rail=ach&direction=credit&amount=5&currency=usd&${nested('counterparty', `name=Bob&${ACCOUNT}`)}&sec_code=CCD&metadata[invoice]=42`;
  const payout = `amount=5.25&currency=usd&method=ach&${nested('destination', `name=Form+Shop&${ACCOUNT}&account_type=checking`)}`;
  const abroad = 'destination[name]=Anna&destination[iban]=DE89370400440532013000';

  const steps: Step[] = [
    {
      route: '/merchants',
      path: () => '/v1/merchants',
      body: 'name=Form+Signup+Shop',
      status: 201,
      key: () => null,
      check: (body) => expect(body.name).toBe('Form Signup Shop'),
    },
    {
      route: '/simulate/balance/top_up',
      path: () => '/v1/simulate/balance/top_up',
      body: 'amount=10000.00&currency=usd&description=seed',
      status: 200,
    },
    {
      route: '/collect',
      path: () => '/v1/collect',
      body: 'amount=25.50&currency=usd&reference=form-col-1&metadata[order]=1001&expires_in=3600',
      status: 200,
      check: (body) => {
        expect(body).toMatchObject({ amount: 25.5, reference: 'form-col-1', metadata: { order: '1001' } });
        expect(Date.parse(String(body.expires_at)) - Date.parse(String(body.created_at))).toBe(3600_000);
      },
    },
    {
      route: '/simulate/collections/{reference}/pay',
      path: () => '/v1/simulate/collections/form-col-1/pay',
      body: `method=card&${CARD}`,
      status: 200,
      check: (body) => expect(body.state).toBe('succeeded'),
    },
    {
      route: '/collect',
      path: () => '/v1/collect',
      body: 'amount=5&currency=USD&reference=form-col-2',
      status: 200,
    },
    {
      route: '/collections/{reference}',
      path: () => '/v1/collections/form-col-1',
      body: 'metadata[order]=&metadata[fulfilment]=shipped&description=Two mugs',
      status: 200,
      check: (body) =>
        expect(body).toMatchObject({ metadata: { fulfilment: 'shipped' }, description: 'Two mugs' }),
    },
    {
      route: '/collections/{reference}/cancel',
      path: () => '/v1/collections/form-col-2/cancel',
      body: '',
      status: 200,
      check: (body) => expect(body.state).toBe('canceled'),
    },
    {
      route: '/collect',
      path: () => '/v1/collect',
      body: 'amount=7&currency=usd&reference=form-col-3',
      status: 200,
    },
    {
      route: '/simulate/collections/{reference}/pay',
      path: () => '/v1/simulate/collections/form-col-3/pay',
      body: `method=card&${CHALLENGE_CARD}`,
      status: 200,
      check: (body) => {
        expect(body.next_action).toMatchObject({ type: 'three_d_secure' });
        ids.attempt = String((body.payment as Json).id);
      },
    },
    {
      route: '/simulate/payment_attempts/{attempt}/complete_3ds',
      path: () => `/v1/simulate/payment_attempts/${id('attempt')}/complete_3ds`,
      body: 'outcome=succeed',
      status: 200,
      check: (body) => expect(body.state).toBe('succeeded'),
    },
    {
      route: '/collect',
      path: () => '/v1/collect',
      body: 'amount=9&currency=usd&reference=form-col-4',
      status: 200,
    },
    {
      route: '/simulate/collections/{reference}/pay',
      path: () => '/v1/simulate/collections/form-col-4/pay',
      body: `method=bank_account&${nested('bank_account', `name=Payer&${ACCOUNT}&account_type=savings`)}`,
      status: 200,
      check: (body) => expect(body.state).toBe('processing'),
    },
    {
      route: '/tokens',
      path: () => '/v1/tokens',
      body: CARD,
      status: 200,
      key: () => m.publicKey,
      check: keep('token'),
    },
    {
      route: '/card_payments',
      path: () => '/v1/card_payments',
      body: 'amount=100&currency=usd&capture=false&token={token}&metadata[cart]=c1',
      status: 200,
      check: keep('authorized', (body) =>
        expect(body).toMatchObject({ state: 'authorized', capture: false }),
      ),
    },
    {
      route: '/card_payments/{id}/capture',
      path: () => `/v1/card_payments/${id('authorized')}/capture`,
      body: 'amount=60.00',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'captured', amount_captured: 60 }),
    },
    {
      route: '/card_payments/{id}/refunds',
      path: () => `/v1/card_payments/${id('authorized')}/refunds`,
      body: 'amount=10&reason=requested_by_customer',
      status: 200,
      check: (body) => expect(body).toMatchObject({ amount: 10, reason: 'requested_by_customer' }),
    },
    {
      route: '/card_payments',
      path: () => '/v1/card_payments',
      body: `amount=20&currency=usd&capture=false&${CARD}`,
      status: 200,
      check: keep('toVoid'),
    },
    {
      route: '/card_payments/{id}/void',
      path: () => `/v1/card_payments/${id('toVoid')}/void`,
      body: '',
      status: 200,
      check: (body) => expect(body.state).toBe('voided'),
    },
    {
      route: '/card_payments',
      path: () => '/v1/card_payments',
      body: `amount=30&currency=usd&capture=true&${CHALLENGE_CARD}`,
      status: 200,
      check: keep('challenged', (body) => expect(body.state).toBe('requires_action')),
    },
    {
      route: '/simulate/card_payments/{id}/complete_3ds',
      path: () => `/v1/simulate/card_payments/${id('challenged')}/complete_3ds`,
      body: 'outcome=succeed',
      status: 200,
      check: (body) => expect(body.state).toBe('captured'),
    },
    {
      route: '/simulate/card_payments/{id}/dispute',
      path: () => `/v1/simulate/card_payments/${id('challenged')}/dispute`,
      body: 'reason=duplicate&amount=12.50&inquiry=false',
      status: 200,
      check: keep('dispute', (body) =>
        expect(body).toMatchObject({ state: 'needs_response', reason: 'duplicate', amount: 12.5 }),
      ),
    },
    {
      route: '/disputes/{id}',
      path: () => `/v1/disputes/${id('dispute')}`,
      body: 'evidence[uncategorized_text]=Signed+receipt&submit=false',
      status: 200,
      check: (body) =>
        expect(body).toMatchObject({
          state: 'needs_response',
          evidence: { uncategorized_text: 'Signed receipt' },
        }),
    },
    {
      route: '/disputes/{id}/close',
      path: () => `/v1/disputes/${id('dispute')}/close`,
      body: '',
      status: 200,
      check: (body) => expect(body.state).toBe('lost'),
    },
    {
      route: '/simulate/card_payments/{id}/dispute',
      path: () => `/v1/simulate/card_payments/${id('authorized')}/dispute`,
      body: 'inquiry=true',
      status: 200,
      check: keep('inquiry', (body) => expect(body.state).toBe('warning_needs_response')),
    },
    {
      route: '/simulate/disputes/{id}/resolve',
      path: () => `/v1/simulate/disputes/${id('inquiry')}/resolve`,
      body: 'outcome=won',
      status: 200,
      check: (body) => expect(body.state).toBe('warning_closed'),
    },
    {
      route: '/transfers',
      path: () => '/v1/transfers',
      body: credit,
      status: 200,
      check: keep('toCancel', (body) => expect(body).toMatchObject({ metadata: { invoice: '42' } })),
    },
    {
      route: '/transfers/{id}/cancel',
      path: () => `/v1/transfers/${id('toCancel')}/cancel`,
      body: '',
      status: 200,
      check: (body) => expect(body.state).toBe('canceled'),
    },
    { route: '/transfers', path: () => '/v1/transfers', body: credit, status: 200, check: keep('transfer') },
    {
      route: '/simulate/transfers/{id}/submit',
      path: () => `/v1/simulate/transfers/${id('transfer')}/submit`,
      body: '',
      status: 200,
    },
    {
      route: '/simulate/transfers/{id}/settle',
      path: () => `/v1/simulate/transfers/${id('transfer')}/settle`,
      body: '',
      status: 200,
    },
    {
      route: '/simulate/transfers/{id}/notification_of_change',
      path: () => `/v1/simulate/transfers/${id('transfer')}/notification_of_change`,
      body: 'code=C02&corrected_data[routing_number]=011000015',
      status: 200,
      check: (body) =>
        expect(body.notifications_of_change).toMatchObject([
          { code: 'C02', corrected_data: { routing_number: '011000015' } },
        ]),
    },
    {
      route: '/transfers/{id}/notification_of_change/refuse',
      path: () => `/v1/transfers/${id('transfer')}/notification_of_change/refuse`,
      body: 'code=C67',
      status: 200,
      check: (body) => expect(body.notifications_of_change).toMatchObject([{ refusal_code: 'C67' }]),
    },
    {
      route: '/counterparties',
      path: () => '/v1/counterparties',
      body: `name=Form+Payee&${ACCOUNT}&account_type=savings`,
      status: 200,
      check: (body) => expect(body).toMatchObject({ object: 'counterparty', account_type: 'savings' }),
    },
    {
      route: '/simulate/transfers/{id}/return',
      path: () => `/v1/simulate/transfers/${id('transfer')}/return`,
      body: 'code=R04',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'returned' }),
    },
    {
      route: '/simulate/transfers/{id}/dishonor_return',
      path: () => `/v1/simulate/transfers/${id('transfer')}/dishonor_return`,
      body: 'code=R69',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'return_dishonored', dishonor_code: 'R69' }),
    },
    {
      route: '/simulate/transfers/{id}/contest_dishonored_return',
      path: () => `/v1/simulate/transfers/${id('transfer')}/contest_dishonored_return`,
      body: 'code=R76',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'return_contested', contest_code: 'R76' }),
    },
    {
      route: '/transfers',
      path: () => '/v1/transfers',
      body: credit.replace('direction=credit', 'direction=debit').replace('sec_code=CCD', 'sec_code=PPD'),
      status: 200,
      check: keep('unauthorized'),
    },
    {
      route: '/simulate/transfers/{id}/submit',
      path: () => `/v1/simulate/transfers/${id('unauthorized')}/submit`,
      body: '',
      status: 200,
    },
    {
      route: '/simulate/transfers/{id}/return',
      path: () => `/v1/simulate/transfers/${id('unauthorized')}/return`,
      body: 'code=R10',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'returned', wsud: { reason_code: 'R10' } }),
    },
    {
      route: '/transfers/{id}/wsud_copy',
      path: () => `/v1/transfers/${id('unauthorized')}/wsud_copy`,
      body: '',
      status: 200,
      check: (body) => expect((body.wsud as Record<string, unknown>).copy_provided_at).not.toBeNull(),
    },
    {
      route: '/payouts',
      path: () => '/v1/payouts',
      body: payout,
      status: 200,
      check: keep('payoutToCancel'),
    },
    {
      route: '/payouts/{id}/cancel',
      path: () => `/v1/payouts/${id('payoutToCancel')}/cancel`,
      body: '',
      status: 200,
    },
    { route: '/payouts', path: () => '/v1/payouts', body: payout, status: 200, check: keep('payout') },
    {
      route: '/simulate/payouts/{id}/submit',
      path: () => `/v1/simulate/payouts/${id('payout')}/submit`,
      body: '',
      status: 200,
    },
    {
      route: '/simulate/payouts/{id}/settle',
      path: () => `/v1/simulate/payouts/${id('payout')}/settle`,
      body: '',
      status: 200,
    },
    {
      route: '/simulate/payouts/{id}/return',
      path: () => `/v1/simulate/payouts/${id('payout')}/return`,
      body: 'code=R03',
      status: 200,
    },
    {
      route: '/simulate/payouts/{id}/dishonor_return',
      path: () => `/v1/simulate/payouts/${id('payout')}/dishonor_return`,
      body: 'code=R61',
      status: 200,
    },
    {
      route: '/simulate/payouts/{id}/contest_dishonored_return',
      path: () => `/v1/simulate/payouts/${id('payout')}/contest_dishonored_return`,
      body: 'code=R71',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'return_contested' }),
    },
    {
      route: '/virtual_cards',
      path: () => '/v1/virtual_cards',
      body: 'brand=visa&cardholder_name=Ann+Lee&currency=usd&spending_controls[limits][0][amount]=500&spending_controls[limits][0][interval]=daily&spending_controls[limits][1][amount]=2000.50&spending_controls[limits][1][interval]=monthly&spending_controls[blocked_mccs][]=7995&metadata[team]=ops',
      status: 200,
      check: keep('card', (body) =>
        expect(body.spending_controls).toMatchObject({
          limits: [
            { amount: 500, interval: 'daily' },
            { amount: 2000.5, interval: 'monthly' },
          ],
          blocked_mccs: ['7995'],
        }),
      ),
    },
    {
      route: '/virtual_cards/{id}',
      path: () => `/v1/virtual_cards/${id('card')}`,
      body: 'metadata[team]=finance&spending_controls[allowed_mccs][]=5814&spending_controls[allowed_mccs][]=5812',
      status: 200,
      check: (body) => {
        expect(body.metadata).toEqual({ team: 'finance' });
        expect(body.spending_controls).toMatchObject({ allowed_mccs: ['5814', '5812'] });
      },
    },
    {
      route: '/simulate/virtual_cards/{id}/authorizations',
      path: () => `/v1/simulate/virtual_cards/${id('card')}/authorizations`,
      body: 'amount=12.50&currency=usd&merchant[name]=Corner+Cafe&merchant[mcc]=5814&merchant[country]=US',
      status: 200,
      check: keep('auth', (body) => expect(body).toMatchObject({ approved: true, amount: 12.5 })),
    },
    {
      route: '/simulate/issuing_authorizations/{id}/capture',
      path: () => `/v1/simulate/issuing_authorizations/${id('auth')}/capture`,
      body: 'amount=12.50',
      status: 200,
    },
    {
      route: '/simulate/issuing_authorizations/{id}/refund',
      path: () => `/v1/simulate/issuing_authorizations/${id('auth')}/refund`,
      body: 'amount=2.50',
      status: 200,
    },
    {
      route: '/simulate/virtual_cards/{id}/authorizations',
      path: () => `/v1/simulate/virtual_cards/${id('card')}/authorizations`,
      body: 'amount=4&merchant[name]=Diner&merchant[mcc]=5812',
      status: 200,
      check: keep('auth2'),
    },
    {
      route: '/simulate/issuing_authorizations/{id}/reverse',
      path: () => `/v1/simulate/issuing_authorizations/${id('auth2')}/reverse`,
      body: '',
      status: 200,
    },
    {
      route: '/fx/quotes',
      path: () => '/v1/fx/quotes',
      body: 'source_currency=usd&target_currency=eur&source_amount=100&lock_duration=hour',
      status: 200,
      check: keep('quote'),
    },
    {
      route: '/fx/conversions',
      path: () => '/v1/fx/conversions',
      body: 'quote_id={quote}&reference=form-fx-1&metadata[desk]=a',
      status: 200,
    },
    {
      route: '/fx/settlements',
      path: () => '/v1/fx/settlements',
      body: `currency=eur&amount=10&${abroad}`,
      status: 200,
      check: keep('settlement'),
    },
    {
      route: '/simulate/inbound_transfers',
      path: () => '/v1/simulate/inbound_transfers',
      body: 'rail=ach&direction=debit&amount=3&currency=usd&sec_code=PPD&originator[name]=Gym&originator[routing_number]=021000021&originator[account_number]=000987654321',
      status: 200,
      check: keep('inbound', (body) => expect(body).toMatchObject({ state: 'pending', amount: 3 })),
    },
    {
      route: '/simulate/inbound_transfers/{id}/settle',
      path: () => `/v1/simulate/inbound_transfers/${id('inbound')}/settle`,
      body: '',
      status: 200,
    },
    {
      route: '/inbound_transfers/{id}/return',
      path: () => `/v1/inbound_transfers/${id('inbound')}/return`,
      body: 'code=R10',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'returned', return_code: 'R10' }),
    },
    {
      route: '/simulate/fx_settlements/{id}/pay',
      path: () => `/v1/simulate/fx_settlements/${id('settlement')}/pay`,
      body: '',
      status: 200,
    },
    {
      route: '/fx/settlements',
      path: () => '/v1/fx/settlements',
      body: `target_currency=eur&source_amount=5&${abroad}`,
      status: 200,
      check: keep('settlement2'),
    },
    {
      route: '/simulate/fx_settlements/{id}/fail',
      path: () => `/v1/simulate/fx_settlements/${id('settlement2')}/fail`,
      body: 'code=AC04',
      status: 200,
    },
    {
      route: '/webhook_endpoints',
      path: () => '/v1/webhook_endpoints',
      body: 'url=http://127.0.0.1:9/hook&enabled_events[]=collection.succeeded&enabled_events[]=card_payment.captured&description=orders',
      status: 200,
      check: keep('endpoint', (body) =>
        expect(body.enabled_events).toEqual(['collection.succeeded', 'card_payment.captured']),
      ),
    },
    {
      route: '/webhook_endpoints/{id}/test',
      path: () => `/v1/webhook_endpoints/${id('endpoint')}/test`,
      body: '',
      status: 200,
    },
    {
      route: '/events/{id}/redeliver',
      path: async () => {
        const events = await t.rest('GET', '/v1/events?type=collection.succeeded&limit=1', {
          key: m.secretKey,
        });
        return `/v1/events/${((events.body.data as Json[])[0] as Json).id}/redeliver`;
      },
      body: 'endpoint_id={endpoint}',
      status: 200,
    },
    {
      route: '/webhook_endpoints/{id}/conformance_runs',
      path: () => `/v1/webhook_endpoints/${id('endpoint')}/conformance_runs`,
      body: 'timeout_ms=1000&seed=5&wait=true',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'failed', seed: 5, timeout_ms: 1000 }),
    },
    {
      route: '/webhook_endpoints/{id}/rotate_secret',
      path: () => `/v1/webhook_endpoints/${id('endpoint')}/rotate_secret`,
      body: '',
      status: 200,
    },
    {
      route: '/webhook_endpoints/{id}',
      path: () => `/v1/webhook_endpoints/${id('endpoint')}`,
      body: 'enabled=false&description=&enabled_events[0]=*',
      status: 200,
      check: (body) =>
        expect(body).toMatchObject({ enabled: false, description: null, enabled_events: ['*'] }),
    },
    {
      route: '/counterparties',
      path: () => '/v1/counterparties',
      body: `name=Form+Verify&${ACCOUNT}`,
      status: 200,
      check: keep('verify'),
    },
    {
      route: '/counterparties/{id}/microdeposits',
      path: () => `/v1/counterparties/${id('verify')}/microdeposits`,
      body: '',
      status: 200,
      check: (body) => expect(body.verification_status).toBe('verification_pending'),
    },
    {
      route: '/transfers',
      path: () => '/v1/transfers',
      body: `rail=wire&direction=credit&amount=1.00&currency=USD&${nested('counterparty', `name=Form+Wire&${ACCOUNT}`)}`,
      status: 200,
      check: keep('wire'),
    },
    {
      route: '/payment_requests',
      path: () => '/v1/payment_requests',
      body: `rail=rtp&amount=5&currency=usd&${nested('payer', `name=Form+Payer&${ACCOUNT}`)}`,
      status: 200,
      check: keep('rfp'),
    },
    {
      route: '/payment_requests/{id}/cancel',
      path: () => `/v1/payment_requests/${id('rfp')}/cancel`,
      body: '',
      status: 200,
    },
    {
      route: '/simulate/payment_requests',
      path: () => '/v1/simulate/payment_requests',
      body: `rail=fednow&amount=1&currency=usd&${nested('requester', `name=Form+Requester&${ACCOUNT}`)}`,
      status: 200,
      check: keep('rfpIn'),
    },
    {
      route: '/payment_requests/{id}/accept',
      path: () => `/v1/payment_requests/${id('rfpIn')}/accept`,
      body: '',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'paid' }),
    },
    {
      route: '/simulate/payment_requests',
      path: () => '/v1/simulate/payment_requests',
      body: `rail=rtp&amount=2&currency=usd&${nested('requester', `name=Form+Requester&${ACCOUNT}`)}`,
      status: 200,
      check: keep('rfpIn2'),
    },
    {
      route: '/payment_requests/{id}/reject',
      path: () => `/v1/payment_requests/${id('rfpIn2')}/reject`,
      body: 'reason=AM14',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'rejected', rejection_code: 'AM14' }),
    },
    {
      // Past the next Fedwire opening, whatever the day (a weekend and a Monday holiday included).
      route: '/clock/advance',
      path: () => '/v1/clock/advance',
      body: 'seconds=345600',
      status: 200,
    },
    {
      route: '/counterparties/{id}/microdeposits/confirm',
      path: () => `/v1/counterparties/${id('verify')}/microdeposits/confirm`,
      body: 'amounts[0]=0.45&amounts[1]=0.32',
      status: 200,
      check: (body) => expect(body.verification_status).toBe('verified'),
    },
    {
      route: '/counterparties',
      path: () => '/v1/counterparties',
      body: `name=Form+Prenote&${ACCOUNT}`,
      status: 200,
      check: keep('prenote'),
    },
    {
      route: '/counterparties/{id}/prenote',
      path: () => `/v1/counterparties/${id('prenote')}/prenote`,
      body: '',
      status: 200,
      check: (body) => expect(body.verification_method).toBe('prenote'),
    },
    {
      route: '/statements',
      path: () => '/v1/statements',
      body: 'currency=usd&date=2026-01-02',
      status: 200,
      check: (body) =>
        expect(body).toMatchObject({ object: 'statement', date: '2026-01-02', currency: 'USD' }),
    },
    {
      route: '/expected_payments',
      path: () => '/v1/expected_payments',
      body: 'direction=credit&amount=12.00&currency=usd&reference=FORM-EXP&days=3',
      status: 200,
      check: keep('expected'),
    },
    {
      route: '/simulate/expected_payments/{id}/pay',
      path: () => `/v1/simulate/expected_payments/${id('expected')}/pay`,
      body: '',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'matched', amount_matched: 12 }),
    },
    {
      route: '/expected_payments',
      path: () => '/v1/expected_payments',
      body: 'direction=debit&amount_min=1&amount_max=2&currency=usd&days=3',
      status: 200,
      check: keep('expectedDebit'),
    },
    {
      route: '/expected_payments/{id}/cancel',
      path: () => `/v1/expected_payments/${id('expectedDebit')}/cancel`,
      body: '',
      status: 200,
      check: (body) => expect(body).toMatchObject({ state: 'canceled' }),
    },
    {
      route: '/transfers/{id}/recall',
      path: () => `/v1/transfers/${id('wire')}/recall`,
      body: 'reason=DUPL',
      status: 200,
      check: (body) =>
        expect(body).toMatchObject({ state: 'completed', recall: { reason: 'DUPL', state: 'requested' } }),
    },
    {
      route: '/clock/advance',
      path: () => '/v1/clock/advance',
      body: 'seconds=60',
      status: 200,
      check: (body) => expect(Number(body.offset_ms)).toBeGreaterThanOrEqual(60_000),
    },
    { route: '/clock/freeze', path: () => '/v1/clock/freeze', body: '', status: 200 },
    { route: '/clock/unfreeze', path: () => '/v1/clock/unfreeze', body: '', status: 200 },
    {
      route: '/clock/advance',
      path: () => '/v1/clock/advance',
      body: 'next=settlement',
      status: 200,
      check: (body) => expect(body.object).toBe('clock'),
    },
    { route: '/clock/reset', path: () => '/v1/clock/reset', body: '', status: 200 },
    {
      route: '/simulate/chaos',
      path: () => '/v1/simulate/chaos',
      body: 'faults=latency%3D1ms',
      status: 200,
      check: (body) => expect(body.faults).toBe('latency=1ms'),
    },
    {
      route: '/simulate/chaos',
      path: () => '/v1/simulate/chaos',
      body: 'faults=',
      status: 200,
      check: (body) => expect(body.faults).toBeNull(),
    },
    {
      route: '/simulate/chaos',
      path: () => '/v1/simulate/chaos',
      body: 'webhook_faults=duplicate%3D0.1&faults=',
      status: 200,
      check: (body) => expect(body).toMatchObject({ faults: null, webhook_faults: 'duplicate=0.1' }),
    },
    {
      route: '/simulate/chaos',
      path: () => '/v1/simulate/chaos',
      body: 'webhook_faults=',
      status: 200,
      check: (body) => expect(body.webhook_faults).toBeNull(),
    },
    {
      route: '/simulate/fixtures',
      path: () => '/v1/simulate/fixtures',
      body: 'name=decline-mix',
      status: 200,
      check: (body) => expect(body).toMatchObject({ object: 'fixture_run', name: 'decline-mix' }),
    },
    {
      route: '/simulate/fixtures',
      path: () => '/v1/simulate/fixtures',
      body: 'steps[0][id]=b&steps[0][method]=GET&steps[0][path]=%2Fv1%2Fbalances&steps[1][clock][advance]=PT1M',
      status: 200,
      check: (body) =>
        expect((body.steps as Json[]).map((step) => [step.id, step.path, step.status])).toEqual([
          ['b', '/v1/balances', 200],
          [null, '/v1/clock/advance', 200],
        ]),
    },
    {
      route: '/simulate/events',
      path: () => '/v1/simulate/events',
      body: 'type=transfer.returned&set[amount]=12.50&set[return_code]=R02&set[metadata.order]=A-1',
      status: 200,
      check: (body) => {
        expect(body).toMatchObject({ object: 'triggered_event', type: 'transfer.returned' });
        expect((body.event as { data: { object: Json } }).data.object).toMatchObject({
          amount: 12.5,
          return_code: 'R02',
          metadata: { order: 'A-1' },
        });
      },
    },
    {
      route: '/keys/roll',
      path: () => '/v1/keys/roll',
      body: '',
      status: 200,
      key: () => roller.secretKey,
      check: (body) => expect(body.secret_key).toMatch(/^sk_test_/),
    },
    {
      route: '/sandbox/snapshots',
      path: () => '/v1/sandbox/snapshots',
      body: 'name=form-seeded',
      status: 200,
      key: () => resetter.secretKey,
      check: (body) => expect(body).toMatchObject({ object: 'snapshot', name: 'form-seeded' }),
    },
    {
      route: '/sandbox/snapshots/{name}/restore',
      path: () => '/v1/sandbox/snapshots/form-seeded/restore',
      body: '',
      status: 200,
      key: () => resetter.secretKey,
      check: (body) => expect(body).toMatchObject({ object: 'snapshot', name: 'form-seeded' }),
    },
    {
      route: '/simulate/reset',
      path: () => '/v1/simulate/reset',
      body: '',
      status: 200,
      key: () => resetter.secretKey,
      check: (body) => expect(body.object).toBe('reset'),
    },
  ];

  for (const [index, step] of steps.entries()) {
    it(`${index + 1}. POST ${step.route} with ${step.body || 'an empty form'} → ${step.status}`, async () => {
      const body = step.body.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(id(name)));
      const key = step.key ? step.key() : m.secretKey;
      const res = await form(await step.path(), body, {
        key: null,
        headers: key === null ? {} : { authorization: basic(key) },
      });
      expect(res.status, res.text).toBe(step.status);
      step.check?.(res.body as Json);
    });
  }

  it('the table covers every POST operation of the document', async () => {
    const document = (await t.rest('GET', '/v1/openapi.json')).body as { paths: Record<string, Json> };
    const posts = Object.entries(document.paths)
      .filter(([, item]) => item.post)
      .map(([path]) => path);
    expect(posts.length).toBeGreaterThanOrEqual(40);
    expect([...new Set(steps.map((step) => step.route))].sort()).toEqual(posts.sort());
  });
});

describe('bracket notation', () => {
  it('nests objects, with the brackets written as they are or %-escaped as client libraries do', async () => {
    const literal = await form(
      '/v1/collect',
      'amount=1&currency=usd&metadata[order]=1&metadata[note]=two+words%26more',
    );
    const escaped = await form(
      '/v1/collect',
      'amount=1&currency=usd&metadata%5Border%5D=1&metadata%5Bnote%5D=two%20words%26more',
    );
    for (const res of [literal, escaped]) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.metadata).toEqual({ order: '1', note: 'two words&more' });
    }
  });

  it('reads key[] as a list, and key[0], key[1] as a list in index order', async () => {
    const appended = await form(
      '/v1/webhook_endpoints',
      'url=https://example.com/a&enabled_events[]=transfer.settled&enabled_events[]=payout.paid',
    );
    expect(appended.status, appended.text).toBe(200);
    expect(appended.body.enabled_events).toEqual(['transfer.settled', 'payout.paid']);
    const indexed = await form(
      '/v1/webhook_endpoints',
      'url=https://example.com/b&enabled_events[1]=payout.paid&enabled_events[0]=transfer.settled',
    );
    expect(indexed.status, indexed.text).toBe(200);
    expect(indexed.body.enabled_events).toEqual(['transfer.settled', 'payout.paid']);
  });

  it('keeps numbered keys of an object (metadata) as keys, not as a list', async () => {
    const res = await form('/v1/collect', 'amount=1&currency=usd&metadata[0]=first&metadata[1]=second');
    expect(res.status, res.text).toBe(200);
    expect(res.body.metadata).toEqual({ 0: 'first', 1: 'second' });
  });

  it('an index list with a gap is refused as the object it is, exactly as JSON would send it', async () => {
    const fromForm = await form(
      '/v1/webhook_endpoints',
      'url=https://example.com/c&enabled_events[0]=transfer.settled&enabled_events[2]=payout.paid',
    );
    const fromJson = await json('/v1/webhook_endpoints', {
      url: 'https://example.com/c',
      enabled_events: { 0: 'transfer.settled', 2: 'payout.paid' },
    });
    expect(fromForm.status).toBe(400);
    expect(errorOf(fromForm)).toEqual(errorOf(fromJson));
    expect(errorOf(fromForm).param).toBe('enabled_events');
  });
});

describe('values: text, and booleans and numbers where only those fit', () => {
  it('capture=false only authorizes and capture=true captures', async () => {
    const authorized = await form('/v1/card_payments', `amount=3&currency=usd&capture=false&${CARD}`);
    const captured = await form('/v1/card_payments', `amount=3&currency=usd&capture=true&${CARD}`);
    expect([authorized.body.state, captured.body.state]).toEqual(['authorized', 'captured']);
    expect([authorized.body.capture, captured.body.capture]).toEqual([false, true]);
  });

  it('an amount stays its exact decimal text: no float in between', async () => {
    const exact = await form('/v1/card_payments', `amount=19.99&currency=usd&${CARD}`);
    expect(exact.status, exact.text).toBe(200);
    expect(exact.text).toContain('"amount":19.99,');
    // As a double, 1.0000000000000001 is 1 (a valid amount); as the text it is, it has too many
    // decimals: refused, exactly as the same literal in JSON.
    expect(Number('1.0000000000000001')).toBe(1);
    const tiny = await form('/v1/simulate/balance/top_up', 'amount=1.0000000000000001&currency=usd');
    const tinyJson = await t.rest('POST', '/v1/simulate/balance/top_up', {
      key: m.secretKey,
      rawBody: '{"amount":1.0000000000000001,"currency":"usd"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(tiny.status).toBe(400);
    expect(errorOf(tiny)).toEqual(errorOf(tinyJson));
    expect(errorOf(tiny)).toMatchObject({ code: 'amount_invalid', param: 'amount' });
  });

  it('an integer field takes its digits (seconds, expires_in); exp_month and exp_year stay text, as the schema takes either', async () => {
    const before = await t.rest('GET', '/v1/clock', { key: m.secretKey });
    const advanced = await form('/v1/clock/advance', 'seconds=3600');
    expect(advanced.status, advanced.text).toBe(200);
    expect(Number(advanced.body.offset_ms) - Number(before.body.offset_ms)).toBeGreaterThanOrEqual(3600_000);
    const token = await form('/v1/tokens', CARD.replace('exp_month]=12', 'exp_month]=07'), {
      key: m.publicKey,
    });
    expect(token.status, token.text).toBe(200);
    expect(token.body.card).toMatchObject({ exp_month: 7, exp_year: 2099 });
  });

  it('an empty value is "" (metadata[x]=) or, where the field may be null, null', async () => {
    const withEmpty = await form('/v1/collect', 'amount=1&currency=usd&metadata[note]=&description=');
    expect(withEmpty.status, withEmpty.text).toBe(200);
    expect(withEmpty.body.metadata).toEqual({ note: '' });
    const endpoint = await form('/v1/webhook_endpoints', 'url=https://example.com/d&description=kept');
    expect(endpoint.body.description).toBe('kept');
    const cleared = await form(`/v1/webhook_endpoints/${endpoint.body.id}`, 'description=');
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.description).toBeNull();
  });
});

describe('errors are those of the same body in JSON', () => {
  const cases: [string, string, string, Json][] = [
    ['a missing field', '/v1/collect', 'currency=usd', { currency: 'usd' }],
    ['an empty body', '/v1/collect', '', {}],
    [
      'an unknown field',
      '/v1/collect',
      'amount=1&currency=usd&ammount=3',
      { amount: 1, currency: 'usd', ammount: '3' },
    ],
    [
      'an unsupported currency',
      '/v1/simulate/balance/top_up',
      'amount=1&currency=chf',
      { amount: 1, currency: 'chf' },
    ],
    [
      'too many decimals',
      '/v1/simulate/balance/top_up',
      'amount=10.123&currency=usd',
      { amount: '10.123', currency: 'usd' },
    ],
    [
      'an exponent',
      '/v1/simulate/balance/top_up',
      'amount=1e2&currency=usd',
      { amount: '1e2', currency: 'usd' },
    ],
    [
      'an empty amount',
      '/v1/simulate/balance/top_up',
      'amount=&currency=usd',
      { amount: '', currency: 'usd' },
    ],
    [
      'a negative amount',
      '/v1/simulate/balance/top_up',
      'amount=-5&currency=usd',
      { amount: -5, currency: 'usd' },
    ],
    ['a zero amount', '/v1/card_payments/cp_none/capture', 'amount=0', { amount: 0 }],
    [
      'a bad reference',
      '/v1/card_payments',
      'amount=1&currency=usd&token=tok_none&reference=a+b',
      { amount: 1, currency: 'usd', token: 'tok_none', reference: 'a b' },
    ],
    [
      'a bad expiry month',
      '/v1/tokens',
      CARD.replace('exp_month]=12', 'exp_month]=13'),
      { card: { number: '4242424242424242', exp_month: 13, exp_year: 2099, cvc: '123' } },
    ],
    [
      'a metadata value too long',
      '/v1/collect',
      `amount=1&currency=usd&metadata[k]=${'v'.repeat(501)}`,
      { amount: 1, currency: 'usd', metadata: { k: 'v'.repeat(501) } },
    ],
    [
      'text no column can store',
      '/v1/collect',
      'amount=1&currency=usd&description=a%00b',
      { amount: 1, currency: 'usd', description: 'a\u0000b' },
    ],
    [
      'an integer too small',
      '/v1/collect',
      'amount=1&currency=usd&expires_in=60',
      { amount: 1, currency: 'usd', expires_in: 60 },
    ],
    [
      'an integer as words',
      '/v1/collect',
      'amount=1&currency=usd&expires_in=soon',
      { amount: 1, currency: 'usd', expires_in: 'soon' },
    ],
    ['a fraction for an integer', '/v1/clock/advance', 'seconds=1.5', { seconds: 1.5 }],
    ['digits a JSON number would not write', '/v1/clock/advance', 'seconds=060', { seconds: '060' }],
    ['a negative integer', '/v1/clock/advance', 'seconds=-5', { seconds: -5 }],
    [
      'a boolean as words',
      '/v1/card_payments',
      `amount=1&currency=usd&capture=yes&${CARD}`,
      {
        amount: 1,
        currency: 'usd',
        capture: 'yes',
        card: { number: '4242424242424242', exp_month: '12', exp_year: '2099', cvc: '123' },
      },
    ],
    [
      'an empty boolean',
      '/v1/card_payments',
      'amount=1&currency=usd&capture=&token=tok_x',
      {
        amount: 1,
        currency: 'usd',
        capture: '',
        token: 'tok_x',
      },
    ],
    [
      'an unknown nested field',
      '/v1/tokens',
      `${CARD}&card[numbr]=1`,
      {
        card: { number: '4242424242424242', exp_month: '12', exp_year: '2099', cvc: '123', numbr: '1' },
      },
    ],
    [
      'a missing nested field',
      '/v1/tokens',
      'card[number]=4242424242424242&card[cvc]=123',
      {
        card: { number: '4242424242424242', cvc: '123' },
      },
    ],
    [
      'a card failing Luhn',
      '/v1/tokens',
      CARD.replace('4242424242424242', '4242424242424241'),
      {
        card: { number: '4242424242424241', exp_month: '12', exp_year: '2099', cvc: '123' },
      },
    ],
    ['a value where an object goes', '/v1/tokens', 'card=4242424242424242', { card: '4242424242424242' }],
    [
      'an object where a value goes',
      '/v1/simulate/balance/top_up',
      'amount[value]=1&currency=usd',
      { amount: { value: '1' }, currency: 'usd' },
    ],
    ['an unknown method', '/v1/simulate/collections/nope/pay', 'method=cash', { method: 'cash' }],
    [
      'a bad list item',
      '/v1/webhook_endpoints',
      'url=https://example.com&enabled_events[]=Nope',
      {
        url: 'https://example.com',
        enabled_events: ['Nope'],
      },
    ],
    [
      'a bad item in a list of objects',
      '/v1/virtual_cards',
      'brand=visa&cardholder_name=A&spending_controls[limits][0][amount]=5&spending_controls[limits][0][interval]=hourly',
      {
        brand: 'visa',
        cardholder_name: 'A',
        spending_controls: { limits: [{ amount: '5', interval: 'hourly' }] },
      },
    ],
    [
      'a bad enum',
      '/v1/fx/quotes',
      'target_currency=eur&source_amount=5&lock_duration=week',
      {
        target_currency: 'eur',
        source_amount: '5',
        lock_duration: 'week',
      },
    ],
    ['a field of a body that takes none', '/v1/clock/freeze', 'now=1', { now: '1' }],
  ];

  for (const [name, path, formBody, jsonBody] of cases) {
    it(`${name}: ${path} ${formBody.slice(0, 60) || '(empty)'}`, async () => {
      const fromForm = await form(path, formBody);
      const fromJson = await json(path, jsonBody);
      expect(fromForm.status, fromForm.text).toBeGreaterThanOrEqual(400);
      expect(fromForm.status).toBeLessThan(500);
      expect(fromForm.status).toBe(fromJson.status);
      expect(errorOf(fromForm)).toEqual(errorOf(fromJson));
    });
  }
});

describe('what only a form can get wrong: a 400 parameter_invalid that names the field', () => {
  const cases: [string, string, string | undefined, RegExp][] = [
    ['a plain key given twice', 'amount=1&amount=2&currency=usd', 'amount', /more than once.*amount\[\]/],
    [
      'a nested key given twice',
      'amount=1&currency=usd&metadata[a]=1&metadata[a]=2',
      'metadata.a',
      /more than once/,
    ],
    [
      'a value and nested fields',
      'amount=1&currency=usd&metadata=x&metadata[a]=1',
      'metadata',
      /both as a value/,
    ],
    [
      'nested fields and a value',
      'amount=1&currency=usd&metadata[a]=1&metadata=x',
      'metadata',
      /both as a value/,
    ],
    [
      'a list and named fields',
      'amount=1&currency=usd&metadata[]=x&metadata[a]=1',
      'metadata',
      /both as a list/,
    ],
    ['an unclosed bracket', 'amount=1&currency=usd&metadata[a=1', undefined, /malformed/],
    ['a key starting with a bracket', 'amount=1&currency=usd&[a]=1', undefined, /malformed/],
    ['text after a bracket', 'amount=1&currency=usd&metadata[a]b=1', undefined, /malformed/],
    [
      '[] before the end of a key',
      'amount=1&currency=usd&metadata[][a]=1',
      undefined,
      /\[\] may only end a key/,
    ],
    ['too deep', `amount=1&currency=usd&metadata${'[a]'.repeat(17)}=1`, undefined, /deeper than 16/],
    ['an escape that is not UTF-8', 'amount=1&currency=usd&description=%FF', undefined, /UTF-8/],
    ['a broken escape', 'amount=1&currency=usd&description=%E2%82', undefined, /UTF-8/],
    ['a truncated escape', 'amount=1&currency=usd&description=50%', undefined, /UTF-8/],
  ];

  for (const [name, body, param, message] of cases) {
    it(name, async () => {
      const before = await t.rest('GET', '/v1/collections?limit=100', { key: m.secretKey });
      const res = await form('/v1/collect', body, { headers: { 'idempotency-key': `form-bad-${name}` } });
      expect(res.status, res.text).toBe(400);
      const error = errorOf(res);
      expect(error.code).toBe('parameter_invalid');
      expect(error.param).toBe(param);
      expect(String(error.message)).toMatch(message);
      const after = await t.rest('GET', '/v1/collections?limit=100', { key: m.secretKey });
      expect((after.body.data as unknown[]).length).toBe((before.body.data as unknown[]).length);
    });
  }

  it('__proto__ in a key is a field like any other: unknown to the schema', async () => {
    const res = await form('/v1/collect', 'amount=1&currency=usd&__proto__[polluted]=1');
    expect(errorOf(res)).toMatchObject({ code: 'parameter_unknown', param: '__proto__' });
    expect(({} as Json).polluted).toBeUndefined();
  });
});

describe('Idempotency-Key: a form body and its JSON twin are one request', () => {
  const card = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

  it('JSON first, then the same content as a form (fields in another order): replayed', async () => {
    const before = await t.countRows(cardPayments, m.id);
    const headers = { 'idempotency-key': 'twin-1' };
    const first = await json(
      '/v1/card_payments',
      { amount: 42.5, currency: 'usd', capture: false, card, metadata: { order: '7' } },
      headers,
    );
    expect(first.status, first.text).toBe(200);
    const second = await form(
      '/v1/card_payments',
      `metadata[order]=7&capture=false&${CARD}&currency=usd&amount=42.5`,
      { headers },
    );
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await t.countRows(cardPayments, m.id)).toBe(before + 1);
  });

  it('a form first, then JSON: replayed; a list and a nested list alike', async () => {
    const headers = { 'idempotency-key': 'twin-2' };
    const first = await form(
      '/v1/virtual_cards',
      'brand=mastercard&cardholder_name=Twin&spending_controls[limits][0][amount]=25.00&spending_controls[limits][0][interval]=weekly&spending_controls[blocked_mccs][]=7995&spending_controls[blocked_mccs][]=7800',
      { headers },
    );
    expect(first.status, first.text).toBe(200);
    const second = await json(
      '/v1/virtual_cards',
      {
        cardholder_name: 'Twin',
        brand: 'mastercard',
        spending_controls: { blocked_mccs: ['7995', '7800'], limits: [{ interval: 'weekly', amount: 25.0 }] },
      },
      headers,
    );
    // 25.0 in JSON is the literal "25.0", not the form's "25.00": another request.
    expect(second.status).toBe(422);
    const third = await t.rest('POST', '/v1/virtual_cards', {
      key: m.secretKey,
      rawBody:
        '{"cardholder_name":"Twin","brand":"mastercard","spending_controls":{"blocked_mccs":["7995","7800"],"limits":[{"interval":"weekly","amount":25.00}]}}',
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(third.status, third.text).toBe(200);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.id).toBe(first.body.id);
  });

  it('booleans and integers read from a form match JSON true/false and numbers', async () => {
    const headers = { 'idempotency-key': 'twin-3' };
    const first = await form('/v1/collect', 'amount=3&currency=usd&expires_in=1800&reference=twin-3', {
      headers,
    });
    expect(first.status, first.text).toBe(200);
    const second = await json(
      '/v1/collect',
      { reference: 'twin-3', expires_in: 1800, currency: 'usd', amount: 3 },
      headers,
    );
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('another content under the same key is still idempotency_key_reused', async () => {
    const headers = { 'idempotency-key': 'twin-4' };
    expect((await json('/v1/collect', { amount: 5, currency: 'usd' }, headers)).status).toBe(200);
    const reused = await form('/v1/collect', 'amount=6&currency=usd', { headers });
    expect(reused.status).toBe(422);
    expect(errorOf(reused).code).toBe('idempotency_key_reused');
  });
});

describe('media types', () => {
  it('takes a charset parameter and any case', async () => {
    for (const type of [`${FORM}; charset=UTF-8`, 'Application/X-WWW-Form-Urlencoded']) {
      const res = await form('/v1/collect', 'amount=1&currency=usd', { headers: { 'content-type': type } });
      expect(res.status, `${type}: ${res.text}`).toBe(200);
    }
  });

  it('still refuses multipart bodies and other types with 415, naming both accepted types', async () => {
    const res = await t.rest('POST', '/v1/collect', {
      key: m.secretKey,
      rawBody: '--zz\r\nContent-Disposition: form-data; name="amount"\r\n\r\n1\r\n--zz--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
    });
    expect(res.status).toBe(415);
    expect(errorOf(res)).toMatchObject({
      code: 'unsupported_media_type',
      message: ERROR_REGISTRY.unsupported_media_type.message,
    });
    expect(String(errorOf(res).message)).toContain('application/x-www-form-urlencoded');
  });

  it('the document declares the form type beside JSON on every POST with a body', async () => {
    const document = (await t.rest('GET', '/v1/openapi.json')).body as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: unknown }> } } }>;
    };
    const bodies = Object.values(document.paths).flatMap((item) =>
      item.post?.requestBody ? [item.post.requestBody] : [],
    );
    expect(bodies.length).toBeGreaterThanOrEqual(40);
    for (const { content } of bodies) {
      expect(Object.keys(content).sort()).toEqual(['application/json', FORM]);
      expect(content[FORM]?.schema).toEqual(content['application/json']?.schema);
    }
  });
});

describe('over a real socket', () => {
  let http: Awaited<ReturnType<typeof listenOnLoopback>>;
  let fuzz: TestMerchant;

  beforeAll(async () => {
    http = await listenOnLoopback(t.app);
    fuzz = await t.merchant('Form Fuzz');
  });

  afterAll(async () => {
    await http?.close();
  });

  const auth = () => ({ authorization: basic(fuzz.secretKey) });

  it('a form as curl -u sk_test_…: -d amount=10 -d currency=usd sends it', async () => {
    const res = await http.send({
      method: 'POST',
      path: '/v1/collect',
      headers: { ...auth(), 'content-type': FORM },
      body: 'amount=10&currency=usd&metadata[order]=A-1',
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ amount: 10, currency: 'USD', metadata: { order: 'A-1' } });
  });

  it('bad form input never yields a 5xx, on any POST operation, and writes nothing', async () => {
    const document = (await t.rest('GET', '/v1/openapi.json')).body as { paths: Record<string, Json> };
    const paths = Object.entries(document.paths)
      .filter(([, item]) => item.post)
      .map(([path]) => `/v1${path.replace(/\{\w+\}/g, 'x_none')}`);
    const junkKey = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc
        .tuple(
          fc.constantFrom(
            'amount',
            'metadata',
            'card',
            'enabled_events',
            'spending_controls',
            'capture',
            'seconds',
          ),
          fc.array(fc.constantFrom('[]', '[0]', '[1]', '[a]', '[', ']', '[[x]]', '[number]', '[limits]'), {
            maxLength: 4,
          }),
        )
        .map(([name, parts]) => name + parts.join('')),
    );
    const junkValue = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('', 'true', 'false', '12', '-1', '1e999', '0.1', 'NaN', '%', '%zz', '%FF', '%00', '+'),
    );
    const defect = fc.oneof(
      fc.stringMatching(/^[a-z]{1,8}$/).map((word) => `zz_${word}=1`),
      fc.constant('amount=1&amount=2'),
      fc.constant('metadata[a=1'),
      fc.constant('x=%E0%A4%A'),
      fc.constant('__proto__[a]=1'),
      fc.constant(`metadata${'[a]'.repeat(20)}=1`),
      fc.constant('card[][number]=1'),
    );
    const body = fc
      .tuple(fc.array(fc.tuple(junkKey, junkValue), { maxLength: 6 }), defect, fc.nat())
      .map(([pairs, bad, at]) => {
        const parts = pairs.map(([key, value]) => `${key}=${value}`);
        parts.splice(at % (parts.length + 1), 0, bad);
        return parts.join('&');
      });
    const before = await t.countRows(cardPayments, fuzz.id);
    const problems: string[] = [];
    let sent = 0;
    for (const [index, path] of paths.entries()) {
      for (const text of fc.sample(body, { numRuns: 12, seed: 4242 + index })) {
        const res = await http.send({
          method: 'POST',
          path,
          headers: { ...auth(), 'content-type': FORM },
          body: text,
        });
        sent++;
        let code: string | undefined;
        try {
          code = JSON.parse(res.text).error?.code;
        } catch {
          code = undefined;
        }
        const ok =
          res.status >= 400 &&
          res.status < 500 &&
          code !== undefined &&
          ERROR_REGISTRY[code as keyof typeof ERROR_REGISTRY]?.status === res.status;
        if (!ok && problems.length < 10)
          problems.push(`${path} ${JSON.stringify(text)} → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(500);
    expect(await t.countRows(cardPayments, fuzz.id)).toBe(before);
    const listed = await t.rest('GET', '/v1/collections', { key: fuzz.secretKey });
    expect(listed.body.data).toEqual([expect.objectContaining({ metadata: { order: 'A-1' } })]);
  }, 120_000);
});
