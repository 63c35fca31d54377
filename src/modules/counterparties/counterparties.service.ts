import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { change, commit } from '../../db/commit.ts';
import { merchantPage, merchantRowsByIds } from '../../db/pages.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { ListQuery, Page } from '../../kernel/pagination.ts';
import { type BankAccount, validateBankAccount } from '../bank-accounts/bank-account.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import type { CreateCounterpartyInput } from './counterparties.schema.ts';
import { type CounterpartyRow, counterparties } from './counterparties.table.ts';
import type { VerificationView } from './counterparties.verification-rules.ts';

/** POST /v1/counterparties: a saved bank account, checked as an inline one is (routing checksum, 4-17 digits). */
export async function createCounterparty(
  ctx: ServiceContext,
  input: CreateCounterpartyInput,
): Promise<CounterpartyRow> {
  const account = validateBankAccount(input, '');
  const now = ctx.clock.now();
  const row: CounterpartyRow = {
    id: newId('counterparty'),
    merchantId: ctx.merchant.id,
    name: input.name,
    routingNumber: account.routingNumber,
    accountNumber: account.accountNumber,
    accountType: account.accountType,
    individualId: input.individual_id ?? null,
    corrections: [],
    verificationState: 'unverified',
    verification: null,
    metadata: input.metadata ?? {},
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, change().insert(counterparties, row));
  return row;
}

/** One of the merchant's counterparties (404 resource_not_found otherwise), locked when asked. */
export async function loadCounterparty(
  exec: Executor,
  merchantId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<CounterpartyRow> {
  const query = exec
    .select()
    .from(counterparties)
    .where(and(eq(counterparties.id, id), eq(counterparties.merchantId, merchantId)));
  const [row] = id.includes('\u0000') ? [] : options.lock ? await query.for('update') : await query;
  if (!row)
    throw new SandbankError('resource_not_found', {
      message: `No counterparty ${id.slice(0, 60)}.`,
    });
  return row;
}

export function getCounterparty(ctx: ServiceContext, id: string): Promise<CounterpartyRow> {
  return loadCounterparty(dbOf(ctx), ctx.merchant.id, id);
}

/** The merchant's counterparties among `ids` (GraphQL's nodes(ids:)). */
export function counterpartiesByIds(ctx: ServiceContext, ids: string[]): Promise<CounterpartyRow[]> {
  return merchantRowsByIds<CounterpartyRow>(ctx, counterparties, ids);
}

export function listCounterparties(ctx: ServiceContext, query: ListQuery): Promise<Page<CounterpartyRow>> {
  return merchantPage(ctx, counterparties, query);
}

/**
 * The bank account of a saved counterparty an entry names (`counterparty: "cpty_…"`), as it is
 * now (corrections applied): 400 parameter_invalid when the merchant has no such counterparty.
 */
export async function savedAccount(
  ctx: ServiceContext,
  id: string,
  param: string,
): Promise<{ id: string; account: BankAccount; name: string; verification: VerificationView }> {
  const row = await loadCounterparty(dbOf(ctx), ctx.merchant.id, id).catch((error: unknown) => {
    if (error instanceof SandbankError && error.code === 'resource_not_found')
      throw new SandbankError('parameter_invalid', { param, message: `No counterparty ${id.slice(0, 60)}.` });
    throw error;
  });
  return {
    id: row.id,
    name: row.name,
    verification: verificationView(row),
    account: {
      name: row.name,
      routingNumber: row.routingNumber,
      accountNumber: row.accountNumber,
      accountType: row.accountType,
      last4: row.accountNumber.slice(-4),
    },
  };
}

/** What an entry's use of the counterparty depends on (counterparties.verification-rules.ts checkVerifiedUse). */
export function verificationView(row: CounterpartyRow): VerificationView {
  return {
    id: row.id,
    state: row.verificationState,
    method: row.verification?.method ?? null,
    availableAt: row.verification ? new Date(row.verification.available_at) : null,
  };
}

export type { CounterpartyCorrection, CounterpartyRow } from './counterparties.table.ts';
