/**
 * Customers and saved PaymentMethods of the Stripe dialect, driven by the official `stripe` SDK:
 * customer CRUD, lists and search; payment methods from card details or test tokens, attached,
 * listed, detached; a card saved by setup_future_usage and charged again off-session; declines
 * with a saved card; and what is refused, in Stripe's shape, writing nothing.
 */
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { stripeCustomers, stripePaymentMethods } from '../../../src/modules/stripe/stripe.objects.table.ts';
import { stripePaymentIntents } from '../../../src/modules/stripe/stripe.table.ts';
import { refusal, stripeDialect } from '../../support/stripe.ts';

const { t, client } = stripeDialect();

const nextYear = () => new Date().getUTCFullYear() + 3;
const visaDetails = () => ({ number: '4242424242424242', exp_month: 8, exp_year: nextYear(), cvc: '314' });

describe('Customers through the stripe SDK', () => {
  it('creates, retrieves, updates (metadata merged), lists, searches and deletes', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const jenny = await stripe.customers.create({
      email: 'jenny.rosen@example.com',
      name: 'Jenny Rosen',
      phone: '+15555550100',
      description: 'First customer',
      metadata: { user_id: '42', tier: 'gold' },
    });
    expect(jenny).toMatchObject({
      object: 'customer',
      email: 'jenny.rosen@example.com',
      name: 'Jenny Rosen',
      phone: '+15555550100',
      description: 'First customer',
      metadata: { user_id: '42', tier: 'gold' },
      balance: 0,
      delinquent: false,
      livemode: false,
      invoice_settings: { default_payment_method: null },
    });
    expect(jenny.id).toMatch(/^cus_/);
    expect(jenny.invoice_prefix).toMatch(/^[0-9A-Z]{8}$/);
    expect(await stripe.customers.retrieve(jenny.id)).toEqual(
      expect.objectContaining({ id: jenny.id, email: jenny.email, created: jenny.created }),
    );

    const updated = await stripe.customers.update(jenny.id, {
      name: 'Jenny R.',
      description: '',
      metadata: { tier: '', plan: 'pro' },
    });
    expect(updated).toMatchObject({
      name: 'Jenny R.',
      description: null,
      email: 'jenny.rosen@example.com',
      metadata: { user_id: '42', plan: 'pro' },
    });
    expect(updated.metadata).not.toHaveProperty('tier');

    const others = [];
    for (const n of [1, 2, 3]) others.push(await stripe.customers.create({ email: `buyer${n}@example.com` }));
    const page = await stripe.customers.list({ limit: 2 });
    expect(page).toMatchObject({ object: 'list', has_more: true, url: '/v1/customers' });
    expect(page.data.map((each) => each.id)).toEqual([others[2]?.id, others[1]?.id]);
    const all = await stripe.customers.list({ limit: 2 }).autoPagingToArray({ limit: 10 });
    expect(all.map((each) => each.id)).toEqual([...others.map((each) => each.id)].reverse().concat(jenny.id));
    const byEmail = await stripe.customers.list({ email: 'buyer2@example.com' });
    expect(byEmail.data.map((each) => each.id)).toEqual([others[1]?.id]);

    const found = await stripe.customers.search({ query: "email:'JENNY.ROSEN@example.com'" });
    expect(found).toMatchObject({ object: 'search_result', has_more: false, next_page: null });
    expect(found.url).toBe('/v1/customers/search');
    expect(found.data.map((each) => each.id)).toEqual([jenny.id]);
    const buyers = await stripe.customers.search({ query: "email~'buyer'", limit: 2 });
    expect(buyers.data).toHaveLength(2);
    expect(buyers.has_more).toBe(true);
    expect(buyers.next_page).toEqual(expect.any(String));
    const rest = await stripe.customers.search({
      query: "email~'buyer'",
      limit: 2,
      page: buyers.next_page as string,
    });
    expect(rest.data.map((each) => each.id)).toEqual([others[0]?.id]);
    const tagged = await stripe.customers.search({ query: "name:'Jenny R.' AND metadata['plan']:'pro'" });
    expect(tagged.data.map((each) => each.id)).toEqual([jenny.id]);
    const unsupported = await refusal(stripe.customers.search({ query: "address.city:'Paris'" }));
    expect(unsupported).toMatchObject({ statusCode: 400, param: 'query' });
    expect(unsupported.message).toContain("'address.city'");

    const deleted = await stripe.customers.del(jenny.id);
    expect(deleted).toEqual(expect.objectContaining({ id: jenny.id, object: 'customer', deleted: true }));
    expect(await stripe.customers.retrieve(jenny.id)).toEqual(
      expect.objectContaining({ id: jenny.id, deleted: true }),
    );
    expect((await stripe.customers.list()).data.map((each) => each.id)).not.toContain(jenny.id);
    expect((await stripe.customers.search({ query: "name:'Jenny R.'" })).data).toEqual([]);
    const gone = await refusal(stripe.customers.update(jenny.id, { name: 'x' }));
    expect(gone).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect(gone.message).toBe(`No such customer: '${jenny.id}'`);
  });
});

describe('PaymentMethods through the stripe SDK', () => {
  it('saves a card from its details, attaches, lists, updates and detaches it; never shows its number', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const customer = await stripe.customers.create({ email: 'card.holder@example.com' });
    const method = await stripe.paymentMethods.create({
      type: 'card',
      card: visaDetails(),
      billing_details: { name: 'Card Holder', address: { postal_code: '94107' } },
      metadata: { source: 'settings-page' },
    });
    expect(method).toMatchObject({
      object: 'payment_method',
      type: 'card',
      customer: null,
      livemode: false,
      metadata: { source: 'settings-page' },
      billing_details: {
        name: 'Card Holder',
        email: null,
        address: { postal_code: '94107', city: null },
      },
      card: { brand: 'visa', last4: '4242', exp_month: 8, exp_year: nextYear(), funding: 'credit' },
    });
    expect(method.id).toMatch(/^pm_/);
    const text = JSON.stringify(method);
    expect(text).not.toContain('4242424242424242');
    expect(text).not.toMatch(/"(number|cvc)"/);
    expect(method.card).not.toHaveProperty('number');
    expect(method.card).not.toHaveProperty('cvc');

    const attached = await stripe.paymentMethods.attach(method.id, { customer: customer.id });
    expect(attached).toMatchObject({ id: method.id, customer: customer.id });
    const listed = await stripe.paymentMethods.list({ customer: customer.id, type: 'card' });
    expect(listed).toMatchObject({ object: 'list', has_more: false });
    expect(listed.data.map((each) => each.id)).toEqual([method.id]);
    const viaCustomer = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
    expect(viaCustomer.data.map((each) => each.id)).toEqual([method.id]);
    expect(await stripe.customers.retrievePaymentMethod(customer.id, method.id)).toMatchObject({
      id: method.id,
    });

    const changed = await stripe.paymentMethods.update(method.id, {
      billing_details: { email: 'billing@example.com' },
      card: { exp_month: 11 },
      metadata: { source: '', nickname: 'work card' },
      expand: ['customer'],
    });
    expect(changed).toMatchObject({
      billing_details: { name: 'Card Holder', email: 'billing@example.com' },
      card: { exp_month: 11, last4: '4242' },
      metadata: { nickname: 'work card' },
      customer: { id: customer.id, object: 'customer', email: 'card.holder@example.com' },
    });

    const withDefault = await stripe.customers.update(customer.id, {
      invoice_settings: { default_payment_method: method.id },
      expand: ['invoice_settings.default_payment_method'],
    });
    expect(withDefault.invoice_settings.default_payment_method).toMatchObject({ id: method.id });

    const detached = await stripe.paymentMethods.detach(method.id);
    expect(detached).toMatchObject({ id: method.id, customer: null });
    expect((await stripe.customers.listPaymentMethods(customer.id)).data).toEqual([]);
    expect((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({
      invoice_settings: { default_payment_method: null },
    });
    const again = await refusal(stripe.paymentMethods.detach(method.id));
    expect(again).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    expect(await stripe.paymentMethods.retrieve(method.id)).toMatchObject({ id: method.id, customer: null });
    // Stripe's test ids still answer.
    expect(await stripe.paymentMethods.retrieve('pm_card_visa')).toMatchObject({
      id: 'pm_card_visa',
      card: { last4: '4242' },
    });
  });

  it('takes test tokens; attaching a test id saves a new payment method; a customer gets one at creation', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const fromToken = await stripe.paymentMethods.create({ type: 'card', card: { token: 'tok_mastercard' } });
    expect(fromToken).toMatchObject({ card: { brand: 'mastercard', last4: '4444' }, customer: null });
    const customer = await stripe.customers.create({ name: 'Token Holder' });
    const saved = await stripe.paymentMethods.attach('pm_card_amex', { customer: customer.id });
    expect(saved.id).toMatch(/^pm_/);
    expect(saved.id).not.toBe('pm_card_amex');
    expect(saved).toMatchObject({ customer: customer.id, card: { brand: 'amex', last4: '0005' } });
    const other = await stripe.paymentMethods.attach('pm_card_amex', { customer: customer.id });
    expect(other.id).not.toBe(saved.id);

    const withCard = await stripe.customers.create({
      email: 'new@example.com',
      payment_method: 'pm_card_visa',
      invoice_settings: { default_payment_method: 'pm_card_visa' },
    });
    const defaultId = withCard.invoice_settings.default_payment_method as string;
    expect(defaultId).toMatch(/^pm_/);
    expect(defaultId).not.toBe('pm_card_visa');
    expect(await stripe.paymentMethods.retrieve(defaultId)).toMatchObject({
      customer: withCard.id,
      card: { last4: '4242' },
    });
  });
});

describe('charging a saved card again', () => {
  it('setup_future_usage saves the card to the customer; a second PaymentIntent charges it off-session', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const customer = await stripe.customers.create({ email: 'returning@example.com' });
    const first = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: 'pm_card_visa',
      setup_future_usage: 'off_session',
      confirm: true,
    });
    expect(first).toMatchObject({
      status: 'succeeded',
      customer: customer.id,
      setup_future_usage: 'off_session',
    });
    const savedId = first.payment_method as string;
    expect(savedId).toMatch(/^pm_/);
    expect(savedId).not.toBe('pm_card_visa');
    const cards = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
    expect(cards.data.map((each) => each.id)).toEqual([savedId]);

    const second = await stripe.paymentIntents.create({
      amount: 3100,
      currency: 'usd',
      customer: customer.id,
      payment_method: savedId,
      off_session: true,
      confirm: true,
      expand: ['payment_method', 'customer', 'latest_charge'],
    });
    expect(second).toMatchObject({
      status: 'succeeded',
      amount_received: 3100,
      payment_method: { id: savedId, customer: customer.id, card: { last4: '4242' } },
      customer: { id: customer.id, email: 'returning@example.com' },
      latest_charge: { customer: customer.id, payment_method: savedId, amount_captured: 3100 },
    });
    // The same payment, natively: a card payment of 31.00 USD with the saved card.
    const charge = second.latest_charge as Stripe.Charge;
    const native = await t.get(m, `/v1/card_payments/cp_${charge.id.slice(3)}`);
    expect(native.status, native.text).toBe(200);
    expect(native.body).toMatchObject({ state: 'captured', reference: second.id, last4: '4242' });
    const mine = await stripe.paymentIntents.list({ customer: customer.id });
    expect(mine.data.map((each) => each.id)).toEqual([second.id, first.id]);

    // Saved at /confirm too, with a saved card made from details and not yet attached.
    const details = await stripe.paymentMethods.create({ type: 'card', card: visaDetails() });
    const later = await stripe.paymentIntents.create({ amount: 990, currency: 'usd', customer: customer.id });
    const confirmed = await stripe.paymentIntents.confirm(later.id, {
      payment_method: details.id,
      setup_future_usage: 'on_session',
    });
    expect(confirmed).toMatchObject({ status: 'succeeded', payment_method: details.id });
    expect(await stripe.paymentMethods.retrieve(details.id)).toMatchObject({ customer: customer.id });
  });

  it('a saved declining card declines; an off-session 3-D Secure card declines as authentication_required', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const customer = await stripe.customers.create({ name: 'Declined Buyer' });
    const declining = await stripe.paymentMethods.create({
      type: 'card',
      card: { number: '4000000000000002', exp_month: 1, exp_year: nextYear(), cvc: '123' },
    });
    await stripe.paymentMethods.attach(declining.id, { customer: customer.id });
    const error = await refusal(
      stripe.paymentIntents.create({
        amount: 1500,
        currency: 'usd',
        customer: customer.id,
        payment_method: declining.id,
        off_session: true,
        confirm: true,
      }),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline' });
    expect(error.payment_intent).toMatchObject({
      status: 'requires_payment_method',
      customer: customer.id,
      last_payment_error: { payment_method: { id: declining.id, customer: customer.id } },
    });
    const poor = await stripe.paymentMethods.create({
      type: 'card',
      card: { token: 'tok_chargeDeclinedInsufficientFunds' },
    });
    const intent = await stripe.paymentIntents.create({
      amount: 700,
      currency: 'usd',
      customer: customer.id,
    });
    const insufficient = await refusal(stripe.paymentIntents.confirm(intent.id, { payment_method: poor.id }));
    expect(insufficient).toMatchObject({ code: 'card_declined', decline_code: 'insufficient_funds' });

    const challenge = await stripe.paymentMethods.attach('pm_card_threeDSecure2Required', {
      customer: customer.id,
    });
    const offSession = await refusal(
      stripe.paymentIntents.create({
        amount: 2500,
        currency: 'usd',
        customer: customer.id,
        payment_method: challenge.id,
        off_session: true,
        confirm: true,
      }),
    );
    expect(offSession).toMatchObject({
      statusCode: 402,
      code: 'authentication_required',
      decline_code: 'authentication_required',
    });
    expect(offSession.payment_intent).toMatchObject({ status: 'requires_payment_method' });
  });
});

describe('what is refused, in Stripe shape, writing nothing', () => {
  it('an unknown customer, another customer’s card, a bad card, a bad email, a card not attached', async () => {
    const m = await t.merchant();
    const stripe = client(m);
    const alice = await stripe.customers.create({ email: 'alice@example.com' });
    const bob = await stripe.customers.create({ email: 'bob@example.com' });
    const alicesCard = await stripe.paymentMethods.attach('pm_card_visa', { customer: alice.id });
    const before = {
      customers: await t.countRows(stripeCustomers, m.id),
      methods: await t.countRows(stripePaymentMethods, m.id),
    };

    const unknown = await refusal(
      stripe.paymentIntents.create({ amount: 500, currency: 'usd', customer: 'cus_nobody', confirm: true }),
    );
    expect(unknown).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'customer' });
    const notBobs = await refusal(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'usd',
        customer: bob.id,
        payment_method: alicesCard.id,
        confirm: true,
      }),
    );
    expect(notBobs).toMatchObject({ statusCode: 400, param: 'payment_method' });
    expect(notBobs.message).toContain(`belongs to the Customer ${alice.id}`);
    const noCustomer = await refusal(
      stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: alicesCard.id }),
    );
    expect(noCustomer).toMatchObject({ statusCode: 400, param: 'payment_method' });
    const unsaved = await refusal(
      stripe.paymentIntents.create({ amount: 500, currency: 'usd', setup_future_usage: 'off_session' }),
    );
    expect(unsaved).toMatchObject({ statusCode: 400, param: 'setup_future_usage' });
    const lonely = await refusal(
      stripe.paymentIntents.create({
        amount: 500,
        currency: 'usd',
        payment_method: 'pm_card_visa',
        off_session: true,
      }),
    );
    expect(lonely).toMatchObject({ statusCode: 400, param: 'off_session' });
    expect(await t.countRows(stripePaymentIntents, m.id)).toBe(0);

    const luhn = await refusal(
      stripe.paymentMethods.create({ type: 'card', card: { ...visaDetails(), number: '4242424242424241' } }),
    );
    expect(luhn).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(luhn).toMatchObject({ statusCode: 402, code: 'incorrect_number', param: 'card[number]' });
    const cvc = await refusal(
      stripe.paymentMethods.create({ type: 'card', card: { ...visaDetails(), cvc: '12' } }),
    );
    expect(cvc).toMatchObject({ code: 'invalid_cvc', param: 'card[cvc]' });
    const expired = await refusal(
      stripe.paymentMethods.create({ type: 'card', card: { ...visaDetails(), exp_year: 2020 } }),
    );
    expect(expired).toMatchObject({ code: 'invalid_expiry_year', param: 'card[exp_year]' });
    const month = await refusal(
      stripe.paymentMethods.create({ type: 'card', card: { ...visaDetails(), exp_month: 13 } }),
    );
    expect(month).toMatchObject({ code: 'invalid_expiry_month', param: 'card[exp_month]' });
    const token = await refusal(
      stripe.paymentMethods.create({ type: 'card', card: { token: 'tok_nothing' } }),
    );
    expect(token).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'card[token]' });
    const sepa = await refusal(stripe.paymentMethods.create({ type: 'sepa_debit' }));
    expect(sepa).toMatchObject({ statusCode: 400, param: 'type' });
    const taken = await refusal(stripe.paymentMethods.attach(alicesCard.id, { customer: bob.id }));
    expect(taken).toMatchObject({ statusCode: 400 });
    const nobody = await refusal(stripe.paymentMethods.attach('pm_card_visa', { customer: 'cus_nobody' }));
    expect(nobody).toMatchObject({ statusCode: 404, param: 'customer' });
    const unattached = await refusal(stripe.paymentMethods.update('pm_card_visa', { metadata: { a: 'b' } }));
    expect(unattached).toMatchObject({ statusCode: 400 });

    const email = await refusal(stripe.customers.create({ email: 'not-an-email' }));
    expect(email).toMatchObject({ statusCode: 400, code: 'email_invalid', param: 'email' });
    const notAttached = await refusal(
      stripe.customers.create({ invoice_settings: { default_payment_method: alicesCard.id } }),
    );
    expect(notAttached).toMatchObject({
      statusCode: 400,
      param: 'invoice_settings[default_payment_method]',
    });
    const badMethod = await refusal(stripe.customers.create({ payment_method: 'pm_nothing' }));
    expect(badMethod).toMatchObject({ statusCode: 404, param: 'payment_method' });

    expect(await t.countRows(stripeCustomers, m.id)).toBe(before.customers);
    expect(await t.countRows(stripePaymentMethods, m.id)).toBe(before.methods);
    expect((await stripe.customers.listPaymentMethods(bob.id)).data).toEqual([]);
  });
});
