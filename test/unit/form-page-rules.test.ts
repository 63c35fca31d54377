/**
 * The rules a dashboard page's form adds to the form reader (bodyOfForm, coerceFormBody's
 * PageRules), read with the operations' own schemas; and that REST's reading never applies them.
 */
import { describe, expect, it } from 'vitest';
import { coerceFormBody, parseFormBody } from '../../src/http/form-body.ts';
import { SandbankError } from '../../src/kernel/errors.ts';
import { advanceClockSchema } from '../../src/modules/clock/clock.schema.ts';
import { createVirtualCardSchema } from '../../src/modules/issuing/issuing.schema.ts';
import { TriggerEventSchema } from '../../src/modules/trigger/trigger.resource.ts';
import { updateEndpointSchema } from '../../src/modules/webhooks/webhooks.schema.ts';
import { bodyOfForm } from '../../src/web/dashboard/form-submit.ts';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SandbankError);
    return error as SandbankError;
  }
  throw new Error('expected a refusal');
};

describe("a page's form", () => {
  it('names list entries by a field, leaves blank ones out, and splits a text list into its words', () => {
    const body = bodyOfForm(createVirtualCardSchema, {
      _csrf: 'token',
      brand: 'visa',
      cardholder_name: 'Ada',
      'spending_controls[limits][daily][amount]': '20',
      'spending_controls[limits][weekly][amount]': '',
      'spending_controls[limits][per_authorization][amount]': '12.50',
      'spending_controls[allowed_mccs]': '',
      'spending_controls[blocked_mccs]': '7995, 7801 7995',
    });
    expect(body.spending_controls?.limits?.map((limit) => limit.interval)).toEqual([
      'per_authorization',
      'daily',
    ]);
    expect(body.spending_controls?.allowed_mccs).toBeUndefined();
    expect(body.spending_controls?.blocked_mccs).toEqual(['7995', '7801']);
  });

  it('a name no field allows is the schema’s error', () => {
    const error = refusal(() =>
      bodyOfForm(createVirtualCardSchema, {
        brand: 'visa',
        cardholder_name: 'Ada',
        'spending_controls[limits][fortnightly][amount]': '20',
      }),
    );
    expect(error.status).toBeLessThan(500);
  });

  it('a checkbox list with its free text is one list; nothing chosen is an empty list, refused', () => {
    const body = bodyOfForm(updateEndpointSchema, {
      'enabled_events[]': ['collection.created', 'payout.paid, collection.created', ''],
      description: '',
      was_enabled: 'true',
      enabled: 'true',
    });
    expect(body).toEqual({
      enabled_events: ['collection.created', 'payout.paid'],
      description: null,
    });
    expect(bodyOfForm(updateEndpointSchema, { was_enabled: 'true', enabled: 'false' })).toEqual({
      enabled: false,
    });
    const error = refusal(() => bodyOfForm(updateEndpointSchema, { 'enabled_events[]': [''] }));
    expect(error.status).toBe(400);
  });

  it('a text where the schema takes a record is its key=value words; a word without a key is a 400', () => {
    expect(
      bodyOfForm(TriggerEventSchema, { type: 'refund.succeeded', set: 'amount=33.30 metadata.order=A-9' }),
    ).toEqual({ type: 'refund.succeeded', set: { amount: '33.30', 'metadata.order': 'A-9' } });
    const error = refusal(() => bodyOfForm(TriggerEventSchema, { type: 'refund.succeeded', set: 'amount' }));
    expect(error).toMatchObject({ code: 'parameter_invalid', status: 400 });
    expect(error.message).toContain('key=value');
  });

  it('a datetime-local value is UTC where the schema takes a date-time; seconds ride along', () => {
    expect(bodyOfForm(advanceClockSchema, { to: '2031-12-02T15:00' })).toEqual({
      to: '2031-12-02T15:00:00Z',
    });
    expect(bodyOfForm(advanceClockSchema, { to: '2031-12-02T15:00:30' })).toEqual({
      to: '2031-12-02T15:00:30Z',
    });
    expect(bodyOfForm(advanceClockSchema, { seconds: '3600' })).toEqual({ seconds: 3600 });
    expect(refusal(() => bodyOfForm(advanceClockSchema, { to: 'soon' })).status).toBe(400);
  });

  it("REST's reading applies none of them", () => {
    const tree = parseFormBody('to=2031-12-02T15:00&spending_controls[blocked_mccs]=7995,7801');
    expect(coerceFormBody(advanceClockSchema, { to: tree.to })).toEqual({ to: '2031-12-02T15:00' });
    expect(coerceFormBody(createVirtualCardSchema, { spending_controls: tree.spending_controls })).toEqual({
      spending_controls: { blocked_mccs: '7995,7801' },
    });
  });
});
