import { randomInt } from 'node:crypto';
import { change, commit } from '../../db/commit.ts';
import { jsonbOrdered } from '../../db/json-records.ts';
import { step } from '../../db/step.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { parseAmount } from '../../kernel/money.ts';
import { luhnCheckDigit } from '../cards/card-numbers.ts';
import { TEST_CARDS } from '../cards/magic-cards.ts';
import { inContextTx, type ServiceContext } from '../context.ts';
import { validateMcc } from './issuing.controls.ts';
import { virtualCardMachine } from './issuing.machine.ts';
import type { VirtualCardRow } from './issuing.resource.ts';
import { AUTHORIZATION_MAX_MINOR, loadCard, virtualCardEvent, virtualCardKind } from './issuing.rows.ts';
import type {
  CreateVirtualCardInput,
  SpendingControlsInput,
  UpdateVirtualCardInput,
} from './issuing.schema.ts';
import { type StoredControls, virtualCards } from './issuing.table.ts';

/**
 * The BINs this sandbox issues from (16-digit numbers). None of the magic test cards starts with
 * them, so an issued card is never one of those; the closed loop recognises its cards by them.
 */
export const ISSUING_BINS = { visa: '485932', mastercard: '532610' } as const;

function newCardNumber(brand: keyof typeof ISSUING_BINS): string {
  let body = ISSUING_BINS[brand];
  while (body.length < 15) body += String(randomInt(10));
  return body + luhnCheckDigit(body);
}

/** Validates parsed spending controls: amounts in USD, MCCs of ISO 18245, stored as strings. */
function parseControls(parsed: SpendingControlsInput = {}, param = 'spending_controls'): StoredControls {
  const limits = (parsed.limits ?? []).map((limit, i) => {
    const amount = parseAmount(limit.amount, 'USD', { max: AUTHORIZATION_MAX_MINOR * 1000n });
    if (amount <= 0n) throw new SandbankError('amount_invalid', { param: `${param}.limits.${i}.amount` });
    return { amount: amount.toString(), interval: limit.interval };
  });
  const mccs = (list: string[] | undefined, name: string) =>
    list?.map((mcc, i) => validateMcc(mcc, `${param}.${name}.${i}`));
  return {
    limits,
    allowed_mccs: mccs(parsed.allowed_mccs, 'allowed_mccs') ?? null,
    blocked_mccs: mccs(parsed.blocked_mccs, 'blocked_mccs') ?? [],
  };
}

/** A drawn card number another card has already: the creation draws another. */
class NumberTaken extends Error {}

/**
 * POST /v1/virtual_cards: a unique, Luhn-valid number of the brand, a CVC, three years of validity.
 * The card and its event are one change; a number drawn twice is refused by the unique index and
 * drawn again.
 */
export async function createVirtualCard(
  ctx: ServiceContext,
  input: CreateVirtualCardInput,
): Promise<VirtualCardRow> {
  const controls = parseControls(input.spending_controls);
  const now = ctx.clock.now();
  for (let attempt = 0; attempt < 5; attempt++) {
    const number = newCardNumber(input.brand);
    if (TEST_CARDS.some((card) => card.number === number)) continue;
    const row: VirtualCardRow = {
      id: newId('virtualCard'),
      merchantId: ctx.merchant.id,
      brand: input.brand,
      number,
      cvc: String(randomInt(1000)).padStart(3, '0'),
      last4: number.slice(-4),
      expMonth: now.getUTCMonth() + 1,
      expYear: now.getUTCFullYear() + 3,
      cardholderName: input.cardholder_name,
      state: virtualCardMachine.initial,
      cvcFailures: 0,
      spendingControls: jsonbOrdered(controls),
      metadata: jsonbOrdered(input.metadata ?? {}),
      createdAt: now,
      updatedAt: now,
    };
    const unique = { target: [virtualCards.number], refusal: () => new NumberTaken() };
    try {
      await commit(
        ctx,
        change()
          .insert(virtualCards, row, unique)
          .event(virtualCardEvent(row, ctx.publicUrl, 'virtual_card.created')),
      );
      return row;
    } catch (error) {
      if (!(error instanceof NumberTaken)) throw error;
    }
  }
  throw new Error('could not draw an unused card number');
}

const STATE_EVENTS = { active: 'unfreeze', frozen: 'freeze', canceled: 'cancel' } as const;

/**
 * POST /v1/virtual_cards/{id}: a new state (active ⇄ frozen → canceled; 409 invalid_state
 * otherwise), new spending controls (replacing the old ones), new metadata. One event per call:
 * `virtual_card.<state>` when the state changed, else `virtual_card.updated`.
 */
export async function updateVirtualCard(
  ctx: ServiceContext,
  id: string,
  input: UpdateVirtualCardInput,
): Promise<VirtualCardRow> {
  const controls = input.spending_controls === undefined ? undefined : parseControls(input.spending_controls);
  return inContextTx(ctx, async (tx) => {
    const card = await loadCard(tx, ctx.merchant.id, id, true);
    const now = ctx.clock.now();
    const changesState = input.state !== undefined && input.state !== card.state;
    const values = {
      ...(controls ? { spendingControls: controls } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
      // Unfreezing forgives the wrong security codes that froze it.
      ...(changesState && input.state === 'active' ? { cvcFailures: 0 } : {}),
      updatedAt: now,
    };
    if (!changesState && card.state === 'canceled') {
      throw new SandbankError('invalid_state', {
        message: 'This virtual card is canceled; it cannot change.',
      });
    }
    if (changesState) return step(tx, ctx, virtualCardKind, card, STATE_EVENTS[input.state!], values);
    // The card is locked: the update is written as it was read.
    const row: VirtualCardRow = { ...card, ...values };
    row.spendingControls = jsonbOrdered(row.spendingControls);
    row.metadata = jsonbOrdered(row.metadata);
    const update = { table: virtualCards, id: card.id, expect: { state: card.state }, set: values };
    const event = virtualCardEvent(row, ctx.publicUrl, 'virtual_card.updated');
    await commit({ db: ctx.db, tx }, change().update(update).event(event));
    return row;
  });
}
