import { SandbankError } from '../../kernel/errors.ts';
import { parseAmount } from '../../kernel/money.ts';
import { parseInput } from '../../kernel/validation.ts';
import type { Overrides, Recipe, RecipeDriver } from '../recipe.ts';
import { achReturnReason, RAIL_LIMIT_MINOR } from '../transfers/transfers.rails.ts';
import { checkInboundReturn } from './inbound-transfers.returns.ts';
import {
  type CreateInboundTransferInput,
  createInboundTransferFieldCodes,
  createInboundTransferSchema,
} from './inbound-transfers.schema.ts';
import {
  createInboundTransfer,
  returnInboundTransfer,
  settleInboundTransfer,
} from './inbound-transfers.service.ts';

/** The recipes of inbound_transfer.<state>: an outside originator's entry driven through its own steps. */

const KEYS = ['amount', 'currency', 'reference', 'description', 'metadata.*'] as const;

function labels(set: Overrides): Record<string, unknown> {
  const metadata = Object.entries(set).filter(([key]) => key.startsWith('metadata.'));
  return {
    ...(set.reference !== undefined ? { reference: set.reference } : {}),
    ...(set.description !== undefined ? { description: set.description } : {}),
    ...(metadata.length ? { metadata: Object.fromEntries(metadata.map(([k, v]) => [k.slice(9), v])) } : {}),
  };
}

/** The entry as POST /v1/simulate/inbound_transfers would take it; a bad override is its 400, named set.<key>. */
function inboundInput(set: Overrides, rail: string, direction: string, secCode?: string) {
  try {
    const input = parseInput(
      createInboundTransferSchema,
      {
        rail,
        direction,
        amount: set.amount ?? '25.00',
        currency: set.currency ?? 'USD',
        originator: {
          name: 'Trigger originator',
          routing_number: '110000000',
          account_number: '000123456789',
        },
        ...(secCode ? { sec_code: secCode } : {}),
        ...labels(set),
      },
      createInboundTransferFieldCodes,
    ) as CreateInboundTransferInput;
    if (parseAmount(input.amount, input.currency) > RAIL_LIMIT_MINOR[input.rail])
      throw new SandbankError('amount_exceeds_rail_limit', {
        param: 'amount',
        message: `The amount is over the ${input.rail} limit per entry.`,
      });
    return input;
  } catch (error) {
    if (error instanceof SandbankError && error.param && !error.param.startsWith('set.'))
      throw new SandbankError(error.code, { param: `set.${error.param}`, message: error.message });
    throw error;
  }
}

function oneOf(set: Overrides, key: string, allowed: readonly string[], fallback: string): string {
  const value = set[key] ?? fallback;
  if (!allowed.includes(value))
    throw new SandbankError('parameter_invalid', {
      param: `set.${key}`,
      message: `This event happens with ${key} ${allowed.join(' or ')}.`,
    });
  return value;
}

/**
 * The override return_code, checked before anything is written with the rules the return step
 * applies (code, direction, the PPD entry's SEC code, who may use it): the run creates and settles
 * the entry before it returns it, and a refusal then would leave them behind. The time frame
 * cannot refuse it: the entry is returned at the instant it settles.
 */
function checkReturnCode(code: string, direction: 'credit' | 'debit'): void {
  const invalid = (message: string) =>
    new SandbankError('parameter_invalid', { param: 'set.return_code', message });
  if (!achReturnReason(code)) throw invalid(`${code.slice(0, 8)} is not a Nacha return code (R01 … R85).`);
  const at = new Date();
  try {
    checkInboundReturn({ direction, secCode: 'PPD', settledAt: at }, code, at);
  } catch (error) {
    if (error instanceof SandbankError) throw invalid(error.message);
    throw error;
  }
}

function achRecipe(
  type: string,
  drives: string,
  steps: readonly ('settle' | 'return')[],
  defaultDirection: 'credit' | 'debit',
): Recipe {
  const extra = steps.includes('return') ? ['return_code'] : [];
  return {
    type,
    drives,
    accepts: [...KEYS, 'rail', 'direction', ...extra],
    movesClock: false,
    prepare(set) {
      const rail = oneOf(set, 'rail', ['ach', 'same_day_ach'], 'ach');
      const direction = oneOf(set, 'direction', ['credit', 'debit'], defaultDirection);
      const input = inboundInput(set, rail, direction, 'PPD');
      const code = set.return_code ?? (direction === 'debit' ? 'R01' : 'R23');
      if (steps.includes('return')) checkReturnCode(code, direction as 'credit' | 'debit');
      return async (d: RecipeDriver) => {
        const { id } = await createInboundTransfer(d.context(), input);
        if (steps.includes('settle')) await settleInboundTransfer(d.context(), id);
        if (steps.includes('return')) await returnInboundTransfer(d.context(), id, { code });
        return id;
      };
    },
  };
}

export const inboundRecipes: Recipe[] = [
  achRecipe(
    'inbound_transfer.created',
    'An outside originator sends an ACH credit to the merchant (direction and rail may be overridden).',
    [],
    'credit',
  ),
  achRecipe(
    'inbound_transfer.settled',
    'An outside originator sends an ACH credit, settled at once (simulate settle).',
    ['settle'],
    'credit',
  ),
  achRecipe(
    'inbound_transfer.returned',
    'An outside originator pulls an ACH debit (PPD); it settles and the merchant returns it (return_code, default R01 for a debit, R23 for a credit).',
    ['settle', 'return'],
    'debit',
  ),
  {
    type: 'inbound_transfer.completed',
    drives: 'An outside originator sends a FedNow credit (rail: fednow or rtp), available at once.',
    accepts: [...KEYS, 'rail'],
    movesClock: false,
    prepare(set) {
      const input = inboundInput(set, oneOf(set, 'rail', ['fednow', 'rtp'], 'fednow'), 'credit');
      return async (d: RecipeDriver) => (await createInboundTransfer(d.context(), input)).id;
    },
  },
];
