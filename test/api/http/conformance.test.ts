import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, Conformance } from '../../support/conformance.ts';
import { createTestApp, type TestApp, type TestMerchant } from '../../support/harness.ts';
import { Receiver } from '../../support/receiver.ts';

/**
 * The suite's contract check can fail: real answers, drifted on purpose, are caught. (Every other
 * test runs its REST answers through the same check in the harness.)
 */

let t: TestApp;
let m: TestMerchant;
let checker: Conformance;
let payment: Answer;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant();
  checker = new Conformance((await t.rest('GET', '/v1/openapi.json')).body);
  const created = await t.rest('POST', '/v1/card_payments', {
    key: m.secretKey,
    body: {
      amount: 12,
      currency: 'USD',
      capture: false,
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    },
  });
  payment = { status: created.status, headers: created.headers, body: created.body };
});
afterAll(() => t.close());

const drifted = (answer: Answer, change: Partial<Answer>): Answer => ({ ...answer, ...change });

describe('the contract check', () => {
  it('passes a real answer as it is', () => {
    expect(payment.status).toBe(200);
    expect(checker.check('POST', '/v1/card_payments', payment)).toEqual([]);
  });

  it('fails a renamed field, a field of the wrong type and a state outside the machine', () => {
    const { amount, ...rest } = payment.body as Record<string, unknown>;
    const renamed = drifted(payment, { body: { ...rest, amount_total: amount } });
    expect(checker.check('POST', '/v1/card_payments', renamed).join()).toContain(
      "must have required property 'amount'",
    );
    const wrongType = drifted(payment, { body: { ...(payment.body as object), amount: '12.00' } });
    expect(checker.check('POST', '/v1/card_payments', wrongType).join()).toContain('/amount must be number');
    const unknownState = drifted(payment, { body: { ...(payment.body as object), state: 'settled' } });
    expect(checker.check('POST', '/v1/card_payments', unknownState).join()).toContain(
      '/state must be equal to one of the allowed values',
    );
  });

  it('fails a status or an error code the operation does not list, and a missing Request-Id', () => {
    expect(checker.check('GET', '/v1/card_payments/cp_1', drifted(payment, { status: 201 }))[0]).toContain(
      'status not documented',
    );
    const refused = {
      status: 409,
      headers: payment.headers,
      body: {
        status: 'error',
        error: { type: 'conflict_error', code: 'duplicate_reference', message: 'x' },
        request_id: 'req_1',
      },
    };
    expect(checker.check('POST', '/v1/card_payments/cp_1/void', refused).join()).toContain(
      'error code duplicate_reference not documented',
    );
    const headers = new Headers(payment.headers);
    headers.delete('Request-Id');
    expect(checker.check('POST', '/v1/card_payments', drifted(payment, { headers })).join()).toContain(
      'header Request-Id missing',
    );
  });

  it('fails a webhook body that drifted from its type', () => {
    const event = {
      id: 'evt_1',
      object: 'event',
      type: 'card_payment.authorized',
      created_at: '2027-01-04T15:00:00.000Z',
      data: { object: payment.body },
    };
    const { status: _status, ...object } = payment.body as Record<string, unknown>;
    expect(checker.checkWebhook({ ...event, data: { object } })).toEqual([]);
    expect(checker.checkWebhook({ ...event, data: { object: { ...object, last4: 4242 } } }).join()).toContain(
      '/data/object/last4 must be string',
    );
    expect(checker.checkWebhook({ ...event, type: 'card_payment.settled' }).join()).toContain(
      'not documented',
    );
  });

  it('fails a webhook delivery whose Standard Webhooks headers drifted; a test receiver fails on either', async () => {
    const receiver = await new Receiver().start();
    try {
      const key = m.secretKey;
      await t.rest('POST', '/v1/clock/freeze', { key });
      const endpoint = await t.rest('POST', '/v1/webhook_endpoints', {
        key,
        body: { url: receiver.url, enabled_events: ['webhook.test'] },
      });
      await t.rest('POST', `/v1/webhook_endpoints/${endpoint.body.id}/test`, { key });
      await t.rest('POST', '/v1/clock/advance', { key, body: { seconds: 1 } });
      expect(receiver.received).toHaveLength(1);
      const delivered = receiver.received[0]!;
      const body = JSON.parse(delivered.body) as Record<string, unknown>;
      const headers = Object.fromEntries(
        ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
          name,
          String(delivered.headers[name]),
        ]),
      );
      expect(checker.checkWebhook(body, delivered.headers)).toEqual([]);
      const { 'webhook-signature': _signature, ...unsigned } = headers;
      expect(checker.checkWebhook(body, unsigned).join()).toContain('header webhook-signature missing');
      expect(checker.checkWebhook(body, { ...headers, 'webhook-timestamp': 'yesterday' }).join()).toContain(
        'header webhook-timestamp must be integer',
      );
      expect(checker.checkWebhook(body, { ...headers, 'webhook-signature': 'sha256=abc' }).join()).toContain(
        'header webhook-signature must match pattern',
      );
      expect(checker.checkWebhook(body, { ...headers, 'content-type': 'text/plain' }).join()).toContain(
        'content-type text/plain not documented',
      );
      // The receivers the suite's tests deliver to check every body and header they get.
      const object = (body.data as { object: Record<string, unknown> }).object;
      const drifted = { ...body, data: { object: { ...object, url: 42 } } };
      await fetch(receiver.url, { method: 'POST', headers, body: JSON.stringify(drifted) });
      expect(() => receiver.assertConforming()).toThrow('/data/object/url must be string');
      await fetch(receiver.url, { method: 'POST', headers: unsigned, body: delivered.body });
      expect(() => receiver.assertConforming()).toThrow('header webhook-signature missing');
    } finally {
      await receiver.stop();
    }
  });
});
