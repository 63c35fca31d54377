import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { recordEvent } from '../events/events.service.ts';
import {
  type IssuingAuthorizationRow,
  issuingAuthorizationResource,
  type VirtualCardRow,
  virtualCardResource,
} from './issuing.resource.ts';
import { issuingAuthorizations, virtualCards } from './issuing.table.ts';

/** The most one authorization may be for (USD cents): 999,999.99, as for card payments. */
export const AUTHORIZATION_MAX_MINOR = 99_999_999n;

export function emitCard(exec: Executor, row: VirtualCardRow, type: string): Promise<string> {
  return recordEvent(exec, {
    merchantId: row.merchantId,
    type: `virtual_card.${type}`,
    objectId: row.id,
    data: { object: virtualCardResource(row) },
    at: row.updatedAt,
  });
}

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

export function emitAuthorization(
  exec: Executor,
  row: IssuingAuthorizationRow,
  type: string,
): Promise<string> {
  return recordEvent(exec, {
    merchantId: row.merchantId,
    type: `issuing_authorization.${type}`,
    objectId: row.id,
    data: { object: issuingAuthorizationResource(row) },
    at: row.updatedAt,
  });
}

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
