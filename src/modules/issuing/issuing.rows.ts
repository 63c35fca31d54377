import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import type { EventInput } from '../../db/outbox.ts';
import { objectEvent } from '../../db/outbox.ts';
import type { StatefulKind } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import {
  type IssuingAuthorizationEvent,
  type IssuingAuthorizationState,
  issuingAuthorizationMachine,
  type VirtualCardEvent,
  type VirtualCardState,
  virtualCardMachine,
} from './issuing.machine.ts';
import {
  type IssuingAuthorizationRow,
  issuingAuthorizationResource,
  type VirtualCardRow,
  virtualCardResource,
} from './issuing.resource.ts';
import { issuingAuthorizations, virtualCards } from './issuing.table.ts';

/** The most one authorization may be for (USD cents): 999,999.99, as for card payments. */
export const AUTHORIZATION_MAX_MINOR = 99_999_999n;

/** A card's event (by default `virtual_card.<state>`, on arriving in it), with the card as it is now. */
export function virtualCardEvent(
  row: VirtualCardRow,
  _publicUrl: string,
  type = `virtual_card.${row.state}`,
): EventInput {
  return objectEvent(row, type, virtualCardResource(row));
}

/** Virtual cards as stateful objects, for step(). */
export const virtualCardKind: StatefulKind<VirtualCardRow, VirtualCardState, VirtualCardEvent> = {
  machine: virtualCardMachine,
  table: virtualCards,
  event: virtualCardEvent,
};

export async function loadCard(
  exec: Executor,
  merchantId: string,
  id: string,
  lock = false,
): Promise<VirtualCardRow> {
  const query = exec
    .select()
    .from(virtualCards)
    .where(and(eq(virtualCards.id, id), eq(virtualCards.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row) throw new SandbankError('resource_not_found', { message: `No virtual card ${id.slice(0, 60)}.` });
  return row;
}

/** An authorization's event (`issuing_authorization.<state>`, on arriving in it), with the authorization as it is now. */
export function issuingAuthorizationEvent(row: IssuingAuthorizationRow): EventInput {
  return objectEvent(row, `issuing_authorization.${row.state}`, issuingAuthorizationResource(row));
}

/**
 * Issuing authorizations as stateful objects, for step(). Their events name what happened: a
 * partial reversal leaves the authorization approved, a refund leaves it captured. The settling
 * steps (issuing.settle.ts) take the step after their ledger work, on a row the caller locked, so
 * the authorization's event follows the balance transactions' events.
 */
export const issuingAuthorizationKind: StatefulKind<
  IssuingAuthorizationRow,
  IssuingAuthorizationState,
  IssuingAuthorizationEvent
> = {
  machine: issuingAuthorizationMachine,
  table: issuingAuthorizations,
  event: issuingAuthorizationEvent,
  eventTypes: {
    reverse_part: 'issuing_authorization.reversed',
    refund: 'issuing_authorization.refunded',
  },
};

export async function loadAuthorization(exec: Executor, merchantId: string, id: string, lock = false) {
  const query = exec
    .select()
    .from(issuingAuthorizations)
    .where(and(eq(issuingAuthorizations.id, id), eq(issuingAuthorizations.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : lock ? await query.for('update') : await query;
  if (!row)
    throw new SandbankError('resource_not_found', {
      message: `No issuing authorization ${id.slice(0, 60)}.`,
    });
  return row;
}
