/**
 * The trigger recipes of transfers (docs/guide/trigger.md): an ACH transfer through its steps, an RTP
 * credit completed or rejected, and the balance transactions a credit's hold makes; and what the
 * recipes of other modules share about bank entries (their rail limit, a return code's check).
 */
import { and, eq } from 'drizzle-orm';
import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { topUp } from '../ledger/ledger.recipes.ts';
import {
  checked,
  GOOD_ACCOUNT,
  LABELS,
  labels,
  type Overrides,
  type Recipe,
  type RecipeDriver,
  ROUTING,
  recipe,
} from '../recipe.ts';
import { createTransfer } from './transfers.create.ts';
import {
  achReturnReason,
  RAIL_LIMIT_MINOR,
  type Rail,
  UNREACHABLE_ROUTING_NUMBER,
} from './transfers.rails.ts';
import { returnRefusal, returnRule } from './transfers.returns.ts';
import {
  type CreateTransferInput,
  createTransferFieldCodes,
  createTransferSchema,
} from './transfers.schema.ts';
import { transferSteps } from './transfers.steps.ts';
import { transfers } from './transfers.table.ts';

/** A bank entry over its rail's limit is refused before a top-up funds it (checked's `also`). */
export function withinRailLimit(parsed: { rail?: string; method?: string }, minor: bigint): void {
  const rail = parsed.rail ?? parsed.method;
  if (rail && Object.hasOwn(RAIL_LIMIT_MINOR, rail) && minor > RAIL_LIMIT_MINOR[rail as Rail])
    throw new SandbankError('amount_exceeds_rail_limit', {
      param: 'amount',
      message: `The amount is over the ${rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[rail as Rail], 'USD')} USD per entry.`,
    });
}

/**
 * The override return_code (or the fallback), checked against the return rules for the entry's
 * direction and SEC code (a recipe's transfers are CCD, a checkout's debits WEB).
 */
export function returnCode(
  set: Overrides,
  fallback: string,
  direction: 'credit' | 'debit' = 'debit',
  secCode: string | null = 'CCD',
): string {
  const code = set.return_code ?? fallback;
  if (!achReturnReason(code))
    throw new SandbankError('parameter_invalid', {
      param: 'set.return_code',
      message: `${code.slice(0, 8)} is not a Nacha return code (R01 … R85).`,
    });
  const rule = returnRule(code);
  const refusal = rule ? returnRefusal(rule, direction, secCode) : null;
  if (refusal) throw new SandbankError('parameter_invalid', { param: 'set.return_code', message: refusal });
  return code;
}

export async function createTransferId(d: RecipeDriver, input: CreateTransferInput): Promise<string> {
  return (await createTransfer(d.context(), input)).id;
}

export async function stepTransfer(
  d: RecipeDriver,
  step: 'submit' | 'settle' | 'cancel',
  id: string,
): Promise<void> {
  await transferSteps[step](d.context(), id);
}

export async function returnTransfer(d: RecipeDriver, id: string, code: string): Promise<void> {
  await transferSteps.return(d.context(), id, { code });
}

/** The balance transaction holding a credit transfer's amount on available: its id. */
async function transferHold(d: RecipeDriver, id: string): Promise<string> {
  const ctx = d.context();
  const [row] = await ctx.db
    .select({ holdId: transfers.holdId })
    .from(transfers)
    .where(and(eq(transfers.id, id), eq(transfers.merchantId, ctx.merchant.id)));
  if (!row?.holdId) throw new SandbankError('invalid_state', { message: 'The transfer holds nothing.' });
  return row.holdId;
}

export const ENTRY_KEYS = ['amount', 'currency', ...LABELS] as const;
const ACH_TRANSFER_KEYS = [...ENTRY_KEYS, 'rail', 'direction'] as const;

function transferInput(set: Overrides, rail: string, routing = ROUTING, direction = 'debit') {
  return checked<CreateTransferInput>(
    createTransferSchema,
    {
      rail,
      direction,
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      counterparty: { name: 'Trigger counterparty', routing_number: routing, account_number: GOOD_ACCOUNT },
      ...labels(set),
    },
    createTransferFieldCodes,
    withinRailLimit,
  );
}

export function achRail(set: Overrides): string {
  const rail = set.rail ?? 'ach';
  if (rail !== 'ach' && rail !== 'same_day_ach')
    throw new SandbankError('parameter_invalid', {
      param: 'set.rail',
      message:
        'This event happens on ACH: rail is ach or same_day_ach (RTP and FedNow transfers are completed or rejected).',
    });
  return rail;
}

/** An ACH transfer (a debit by default: it needs no funds; a credit is funded first), then `steps`. */
function achTransfer(
  type: string,
  drives: string,
  steps: readonly ('submit' | 'settle' | 'return' | 'cancel')[],
  extraKeys: readonly string[] = [],
): Recipe {
  return recipe(type, drives, [...ACH_TRANSFER_KEYS, ...extraKeys], (set) => {
    const input = transferInput(set, achRail(set), ROUTING, set.direction ?? 'debit');
    const code = steps.includes('return')
      ? returnCode(
          set,
          input.direction === 'debit' ? 'R01' : 'R03',
          input.direction === 'credit' ? 'credit' : 'debit',
          input.sec_code ?? 'CCD',
        )
      : null;
    return async (d) => {
      if (input.direction === 'credit') await topUp(d, input.amount, input.currency);
      const id = await createTransferId(d, input);
      for (const step of steps) {
        if (step === 'return') await returnTransfer(d, id, code ?? 'R01');
        else await stepTransfer(d, step, id);
      }
      return id;
    };
  });
}

function rtpTransfer(type: string, drives: string, routing: string): Recipe {
  return recipe(
    type,
    drives,
    ENTRY_KEYS,
    (set) => {
      const input = transferInput(set, 'rtp', routing, 'credit');
      return async (d) => {
        await topUp(d, input.amount, input.currency);
        const id = await createTransferId(d, input);
        await d.advance(5);
        return id;
      };
    },
    true,
  );
}

export const transferRecipes: Recipe[] = [
  achTransfer('transfer.created', 'Creates an ACH transfer (a debit by default).', []),
  achTransfer('transfer.submitted', 'Creates an ACH transfer and submits it (simulate submit).', ['submit']),
  achTransfer('transfer.settled', 'Creates an ACH transfer, submits and settles it.', ['submit', 'settle']),
  achTransfer(
    'transfer.returned',
    'Creates an ACH transfer, submits and settles it, then the bank returns it (return_code, default R01 for a debit, R03 for a credit).',
    ['submit', 'settle', 'return'],
    ['return_code'],
  ),
  achTransfer('transfer.canceled', 'Creates an ACH transfer and cancels it before submission.', ['cancel']),
  rtpTransfer(
    'transfer.completed',
    "Tops up the balance, sends an RTP credit and advances the merchant's clock 5 seconds (RTP completes in 2).",
    ROUTING,
  ),
  rtpTransfer(
    'transfer.rejected',
    "Tops up the balance, sends an RTP credit to the unreachable routing number 790000051 and advances the merchant's clock 5 seconds.",
    UNREACHABLE_ROUTING_NUMBER,
  ),
];

/** Tops up the balance, then an ACH credit transfer holds on available and takes `steps`. */
function heldCredit(
  type: string,
  drives: string,
  steps: readonly ('submit' | 'settle' | 'cancel')[],
): Recipe {
  return recipe(type, drives, ['amount', ...LABELS], (set) => {
    const input = transferInput(set, 'ach', ROUTING, 'credit');
    return async (d) => {
      await topUp(d, input.amount, input.currency);
      const id = await createTransferId(d, input);
      const hold = await transferHold(d, id);
      for (const step of steps) await stepTransfer(d, step, id);
      return hold;
    };
  });
}

/** The balance transactions of a credit transfer's hold: posted when it settles, voided when it is canceled. */
export const heldCreditRecipes: Recipe[] = [
  heldCredit(
    'balance_transaction.posted',
    'Tops up the balance, creates an ACH credit transfer (a hold on available), submits and settles it: the hold is posted.',
    ['submit', 'settle'],
  ),
  heldCredit(
    'balance_transaction.voided',
    'Tops up the balance, creates an ACH credit transfer (a hold on available) and cancels it: the hold is voided.',
    ['cancel'],
  ),
];
