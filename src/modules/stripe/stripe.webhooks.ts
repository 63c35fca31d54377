import { randomBytes } from 'node:crypto';
import { SandbankError } from '../../kernel/errors.ts';
import type { ServiceContext } from '../context.ts';
import type { EventDialect } from '../webhooks/webhooks.dialect.ts';
import { createEndpointSchema } from '../webhooks/webhooks.schema.ts';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointRow,
  endpointsOfFormat,
  getEndpoint,
  updateEndpoint,
} from '../webhooks/webhooks.service.ts';
import { invalidParam, noSuch } from './stripe.errors.ts';
import { projectEvent } from './stripe.events.project.ts';
import { candidates, stripeEventTypes } from './stripe.events.rules.ts';
import { stripeEventBodies } from './stripe.events.ts';

/**
 * The Stripe dialect's webhook endpoints (`/v1/webhook_endpoints`): native endpoints of format
 * `stripe` — the same URL policy, cap, deliveries, retries and chaos — sent the dialect's events,
 * signed with Stripe-Signature (webhooks.dialect.ts, webhooks.signing.ts). Their secret is
 * `whsec_` and 64 hex digits, shown by the create answer only.
 */

/** What the webhook module makes of native events for these endpoints (registered: reactions.ts). */
export const stripeEventDialect: EventDialect = {
  candidates: candidates(),
  project: async (db, event) =>
    (await projectEvent(db, event)).map((row) => ({ id: row.id, type: row.type, at: row.createdAt })),
  bodies: stripeEventBodies,
};

export interface EndpointFields {
  url?: string | undefined;
  enabledEvents?: string[] | undefined;
  description?: string | null | undefined;
  disabled?: boolean | undefined;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export function renderEndpoint(row: EndpointRow, withSecret = false) {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    api_version: null,
    application: null,
    created: seconds(row.createdAt),
    description: row.description,
    enabled_events: row.enabledEvents,
    livemode: false,
    metadata: {},
    ...(withSecret ? { secret: row.secret } : {}),
    status: row.enabled ? 'enabled' : 'disabled',
    url: row.url,
  };
}

/** The endpoint URL, under the native endpoints' policy (http or https, at most 2048 characters). */
function checkUrl(url: string): string {
  if (!createEndpointSchema.shape.url.safeParse(url).success)
    throw invalidParam(
      'url',
      `Invalid URL: ${url.slice(0, 100)} is not an http(s) URL of at most 2048 characters.`,
      'url_invalid',
    );
  return url;
}

/** Stripe's event types the dialect sends, or "*"; refuses any other, naming it. */
function checkEvents(types: string[]): string[] {
  if (types.length === 0)
    throw invalidParam('enabled_events', 'enabled_events must name at least one event type, or "*".');
  const known = new Set(stripeEventTypes());
  for (const [i, type] of types.entries())
    if (type !== '*' && !known.has(type))
      throw invalidParam(
        `enabled_events[${i}]`,
        `Invalid enabled_events[${i}]: ${type.slice(0, 100)} is not an event type Sandbank's Stripe dialect sends. It sends: ${[...known].join(', ')} (or "*" for all).`,
      );
  return [...new Set(types)];
}

export async function createStripeEndpoint(
  ctx: ServiceContext,
  fields: { url: string; enabledEvents: string[]; description?: string | undefined },
): Promise<EndpointRow> {
  return createEndpoint(
    ctx,
    {
      url: checkUrl(fields.url),
      enabled_events: checkEvents(fields.enabledEvents),
      ...(fields.description !== undefined ? { description: fields.description } : {}),
      secret: `whsec_${randomBytes(32).toString('hex')}`,
    },
    'stripe',
  );
}

/** One of the merchant's Stripe endpoints (a native endpoint's id names none here). */
export async function retrieveStripeEndpoint(ctx: ServiceContext, id: string): Promise<EndpointRow> {
  try {
    const row = await getEndpoint(ctx, id);
    if (row.format === 'stripe') return row;
  } catch (error) {
    if (!(error instanceof SandbankError && error.code === 'resource_not_found')) throw error;
  }
  throw noSuch('webhook_endpoint', id);
}

export async function updateStripeEndpoint(
  ctx: ServiceContext,
  id: string,
  fields: EndpointFields,
): Promise<EndpointRow> {
  const current = await retrieveStripeEndpoint(ctx, id);
  return updateEndpoint(ctx, current.id, {
    ...(fields.url !== undefined ? { url: checkUrl(fields.url) } : {}),
    ...(fields.enabledEvents !== undefined ? { enabled_events: checkEvents(fields.enabledEvents) } : {}),
    ...(fields.description !== undefined ? { description: fields.description } : {}),
    ...(fields.disabled !== undefined ? { enabled: !fields.disabled } : {}),
  });
}

export async function deleteStripeEndpoint(ctx: ServiceContext, id: string): Promise<EndpointRow> {
  const current = await retrieveStripeEndpoint(ctx, id);
  return deleteEndpoint(ctx, current.id);
}

/** A page of the merchant's Stripe endpoints, newest first (there are 16 at most: read whole). */
export async function listStripeEndpoints(
  ctx: ServiceContext,
  query: { limit: number; startingAfter?: string | undefined; endingBefore?: string | undefined },
): Promise<{ data: EndpointRow[]; hasMore: boolean }> {
  const all = await endpointsOfFormat(ctx, 'stripe');
  if (query.endingBefore !== undefined) {
    const newer = all.filter((row) => row.id > (query.endingBefore as string));
    return { data: newer.slice(-query.limit), hasMore: newer.length > query.limit };
  }
  const older = query.startingAfter ? all.filter((row) => row.id < (query.startingAfter as string)) : all;
  return { data: older.slice(0, query.limit), hasMore: older.length > query.limit };
}
