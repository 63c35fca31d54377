import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { transition } from '../../kernel/state-machine.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { postHold, voidHold } from '../ledger/ledger.holds.ts';
import type { JobRow } from '../scheduler/scheduler.service.ts';
import { FAILURE_REASONS, failureReasonOf } from './fx.destinations.ts';
import type { FxSettlementRow } from './fx.resource.ts';
import { loadOne } from './fx.rows.ts';
import type { FailSettlementInput } from './fx.schema.ts';
import { settlementKind } from './fx.settlements.ts';
import { fxSettlements } from './fx.table.ts';

/**
 * How a converted settlement ends: paid on its payment day (or at once by the simulation), or
 * refused by the beneficiary's bank, its amount back on the target balance.
 */

/** The beneficiary's bank credits a converted settlement (the hold leaves), or refuses it (back to available). */
async function settle(
  tx: Tx,
  ctx: ServiceContext,
  row: FxSettlementRow,
  failureCode: string | null,
): Promise<FxSettlementRow> {
  const now = ctx.clock.now();
  // The state is checked before the hold moves (409 on the settlement, not its hold); the
  // settlement's event follows the hold's.
  transition(settlementKind.machine, row.state, failureCode ? 'fail' : 'pay');
  if (failureCode) {
    await voidHold(tx, row.merchantId, row.holdId as string, now);
    return step(tx, ctx, settlementKind, row, 'fail', {
      failedAt: now,
      failureCode,
      failureReason: failureReasonOf(failureCode),
      updatedAt: now,
    });
  }
  await postHold(tx, row.merchantId, row.holdId as string, now, 'bank_rails');
  return step(tx, ctx, settlementKind, row, 'pay', { paidAt: now, updatedAt: now });
}

function lockSettlement(tx: Tx, ctx: ServiceContext, id: string): Promise<FxSettlementRow> {
  return loadOne<FxSettlementRow>(tx, fxSettlements, ctx.merchant.id, id, 'FX settlement', { lock: true });
}

/** Due work: on its payment day a settlement is paid, or fails when its destination is a magic one. */
export async function paySettlementJob(ctx: ServiceContext & { tx: Tx }, job: JobRow): Promise<void> {
  const [row] = await ctx.tx
    .select()
    .from(fxSettlements)
    .where(and(eq(fxSettlements.id, job.objectId), eq(fxSettlements.merchantId, ctx.merchant.id)))
    .for('update');
  if (row?.state !== 'converted') return;
  await settle(ctx.tx, ctx, row, row.failsWith);
}

/** POST /v1/simulate/fx_settlements/{id}/pay: the beneficiary's bank credits it now (409 unless converted). */
export function simulateSettlementPay(ctx: ServiceContext, id: string): Promise<FxSettlementRow> {
  return inContextTx(ctx, async (tx) => settle(tx, ctx, await lockSettlement(tx, ctx, id), null));
}

/**
 * POST /v1/simulate/fx_settlements/{id}/fail {code?}: the beneficiary's bank refuses it now with an
 * ISO 20022 reason (AC04 by default); the amount goes back to the target balance's available.
 */
export function simulateSettlementFail(
  ctx: ServiceContext,
  id: string,
  input: FailSettlementInput,
): Promise<FxSettlementRow> {
  const code = input.code ?? 'AC04';
  return inContextTx(ctx, async (tx) => {
    const row = await lockSettlement(tx, ctx, id);
    if (row.state === 'converted' && !(code in FAILURE_REASONS)) {
      throw new SandbankError('parameter_invalid', {
        param: 'code',
        message: `${code} is not one of the simulated reasons: ${Object.keys(FAILURE_REASONS).join(', ')}.`,
      });
    }
    return settle(tx, ctx, row, code);
  });
}
