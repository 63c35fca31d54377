import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { formatDecimal } from '../../kernel/money.ts';
import {
  COLLECTION_MAX_MINOR,
  cancelCollection,
  createCollection,
  getCollection,
} from '../collections/collections.service.ts';
import { dbOf, inContextTx, type ServiceContext } from '../context.ts';
import { type LineItemInput, storedLineItems, totalOf } from './stripe.checkout-items.ts';
import { type CheckoutSessionView, loadSession, retrieveCheckoutSession } from './stripe.checkout-read.ts';
import { type CheckoutSessionRow, checkoutStatus } from './stripe.checkout-render.ts';
import { invalidParam, StripeError } from './stripe.errors.ts';
import { stripeCheckoutSessions, stripeCustomers } from './stripe.objects.table.ts';

/**
 * Checkout Sessions in payment mode. Each is a native collection — its hosted checkout is the
 * session's `url` — created with the session's total, the payer's e-mail, and the success_url
 * (its {CHECKOUT_SESSION_ID} filled in) as the collection's redirect_url: the hosted page sends the
 * payer there once paid. Its reference is the id of the PaymentIntent its payment makes
 * (stripe.checkout-intent.ts). Expiring a session cancels its collection.
 */

export interface CheckoutSessionInput {
  lineItems: LineItemInput[];
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
  customer?: string | undefined;
  customerEmail?: string | undefined;
  clientReferenceId?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
  /** Unix seconds: 30 minutes to 24 hours after now, by the merchant's clock. */
  expiresAt?: bigint | undefined;
}

const MIN_TOTAL = 50n;
const MIN_LIFETIME = 1800;
const MAX_LIFETIME = 86_400;
/** The longest URL a collection's redirect_url takes. */
const MAX_URL = 2048;

const emailSchema = z.email().max(254);

/** An http(s) URL a browser can be sent to, or the parameter's error. */
function checkedUrl(param: string, value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw invalidParam(param, 'Not a valid URL', 'url_invalid');
  if (value.length > MAX_URL)
    throw invalidParam(
      param,
      `Invalid URL: ${param} must be at most ${MAX_URL} characters long.`,
      'url_invalid',
    );
  return value;
}

/** Seconds from now until the session expires (default 24 hours). */
function lifetimeOf(ctx: ServiceContext, expiresAt: bigint | undefined): number {
  if (expiresAt === undefined) return MAX_LIFETIME;
  const now = BigInt(Math.floor(ctx.clock.now().getTime() / 1000));
  const lifetime = expiresAt - now;
  if (lifetime < BigInt(MIN_LIFETIME) || lifetime > BigInt(MAX_LIFETIME))
    throw invalidParam(
      'expires_at',
      `The \`expires_at\` timestamp must be between 30 minutes and 24 hours after the Checkout Session's creation (${now} by the sandbox clock): between ${now + BigInt(MIN_LIFETIME)} and ${now + BigInt(MAX_LIFETIME)}.`,
      'parameter_invalid_integer',
    );
  return Number(lifetime);
}

async function customerEmailOf(ctx: ServiceContext, customer: string): Promise<string | null> {
  const t = stripeCustomers;
  const [row] = customer.includes('\u0000')
    ? []
    : await dbOf(ctx)
        .select({ email: t.email })
        .from(t)
        .where(and(eq(t.id, customer), eq(t.merchantId, ctx.merchant.id), isNull(t.deletedAt)));
  if (!row) throw invalidParam('customer', `No such customer: '${customer}'`, 'resource_missing');
  return row.email;
}

/** The collection's description: what the payer is asked to pay for. */
function descriptionOf(items: readonly LineItemInput[]): string {
  const text = items
    .map((item) => (item.quantity > 1n ? `${item.name} × ${item.quantity}` : item.name))
    .join(', ');
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}

export async function createCheckoutSession(
  current: ServiceContext,
  input: CheckoutSessionInput,
): Promise<CheckoutSessionView> {
  // One instant for the whole creation: expires_at is then exactly the one asked for.
  const at = current.clock.now();
  const real = current.clock.real;
  const ctx = { ...current, clock: { now: () => new Date(at.getTime()), ...(real ? { real } : {}) } };
  const id = newId('stripeCheckoutSession');
  const items = storedLineItems(id, input.lineItems);
  const total = totalOf(items);
  if (total < MIN_TOTAL)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'amount_too_small',
      param: 'line_items',
      message: "The Checkout Session's total amount due must add up to at least $0.50 usd",
    });
  if (total > COLLECTION_MAX_MINOR)
    throw new StripeError(400, {
      type: 'invalid_request_error',
      code: 'amount_too_large',
      param: 'line_items',
      message: `The Checkout Session's total amount due must be no more than $${formatDecimal(COLLECTION_MAX_MINOR, 'USD')} usd`,
    });
  const successUrl = input.successUrl === undefined ? undefined : checkedUrl('success_url', input.successUrl);
  const redirectUrl =
    successUrl === undefined
      ? undefined
      : checkedUrl('success_url', successUrl.replaceAll('{CHECKOUT_SESSION_ID}', id));
  const cancelUrl = input.cancelUrl === undefined ? undefined : checkedUrl('cancel_url', input.cancelUrl);
  if (input.customer !== undefined && input.customerEmail !== undefined)
    throw invalidParam(
      'customer_email',
      'You may only specify one of these parameters: customer, customer_email.',
    );
  if (input.customerEmail !== undefined && !emailSchema.safeParse(input.customerEmail).success)
    throw invalidParam('customer_email', `Invalid email address: ${input.customerEmail}`, 'email_invalid');
  const metadata = input.metadata ?? {};
  if (Object.keys(metadata).length > 50)
    throw invalidParam('metadata', 'You can have at most 50 metadata keys.', 'parameter_invalid_empty');
  const lifetime = lifetimeOf(ctx, input.expiresAt);
  const customerEmail = input.customer === undefined ? undefined : await customerEmailOf(ctx, input.customer);
  const email = input.customerEmail ?? customerEmail ?? undefined;
  const validEmail = email !== undefined && emailSchema.safeParse(email).success ? email : undefined;
  return inContextTx(ctx, async (tx) => {
    const inTx = { ...ctx, tx };
    const collection = await createCollection(inTx, {
      amount: formatDecimal(total, 'USD'),
      currency: 'USD',
      reference: newId('stripePaymentIntent'),
      description: descriptionOf(input.lineItems),
      metadata: { checkout_session: id },
      expires_in: lifetime,
      ...(validEmail ? { email: validEmail } : {}),
      ...(redirectUrl ? { redirect_url: redirectUrl } : {}),
    });
    const now = collection.createdAt;
    const row: CheckoutSessionRow = {
      id,
      merchantId: ctx.merchant.id,
      collectionId: collection.id,
      mode: 'payment',
      amountTotal: total,
      currency: 'usd',
      lineItems: items as unknown as Record<string, unknown>[],
      successUrl: successUrl ?? null,
      cancelUrl: cancelUrl ?? null,
      customerId: input.customer ?? null,
      customerEmail: input.customerEmail ?? null,
      clientReferenceId: input.clientReferenceId ?? null,
      metadata,
      status: 'open',
      paymentIntentId: null,
      expiresAt: collection.expiresAt,
      createdAt: now,
      updatedAt: now,
    };
    await tx.insert(stripeCheckoutSessions).values(row);
    return { row, collection: await getCollection(inTx, collection.id) };
  });
}

/** Expires an open session: its collection is canceled, and its checkout closes. */
export async function expireCheckoutSession(ctx: ServiceContext, id: string): Promise<CheckoutSessionView> {
  const session = await loadSession(ctx, id);
  await inContextTx(ctx, async (tx) => {
    const inTx = { ...ctx, tx };
    const notOpen = async () => {
      const status = checkoutStatus(await getCollection(inTx, session.collectionId));
      return status === 'open'
        ? null
        : new StripeError(400, {
            type: 'invalid_request_error',
            message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of ${status}.`,
          });
    };
    const refusal = await notOpen();
    if (refusal) throw refusal;
    try {
      await cancelCollection(inTx, session.collectionId);
    } catch (error) {
      // Paid (or expired) between the read and the cancel: refused as it now stands.
      if (!(error instanceof SandbankError && error.code === 'invalid_state')) throw error;
      throw (await notOpen()) ?? error;
    }
  });
  return retrieveCheckoutSession(ctx, id);
}
