/**
 * The trigger recipes of expected payments (docs/guide/trigger.md): an expected credit created,
 * paid by its payer (in full, or 1.00 short), left to lapse, or canceled.
 */
import { nyDateOf } from '../../kernel/calendar.ts';
import { checked, type Overrides, type Recipe, recipe } from '../recipe.ts';
import {
  type CreateExpectedPaymentInput,
  createExpectedPaymentFieldCodes,
  createExpectedPaymentSchema,
} from './reconciliation.schema.ts';
import { cancelExpectedPayment, createExpectedPayment } from './reconciliation.service.ts';
import { simulatePayment } from './reconciliation.simulate.ts';

const KEYS = ['amount', 'reference', 'description'] as const;

function expectedInput(set: Overrides, now: Date, amount?: string): CreateExpectedPaymentInput {
  const today = nyDateOf(now);
  return checked<CreateExpectedPaymentInput>(
    createExpectedPaymentSchema,
    {
      direction: 'credit',
      amount: amount ?? set.amount ?? '25.00',
      currency: 'USD',
      date_from: today,
      days: 3,
      reference: set.reference ?? 'INV-TRIGGER',
      ...(set.description !== undefined ? { description: set.description } : {}),
    },
    createExpectedPaymentFieldCodes,
  );
}

/** An expected credit, then what happens to it (nothing, paid, lapsed, canceled). */
function expected(type: string, drives: string, then: 'none' | 'pay' | 'short' | 'lapse' | 'cancel'): Recipe {
  return recipe(
    type,
    drives,
    KEYS,
    (set) => {
      expectedInput(set, new Date()); // checks the overrides before anything runs
      return async (d) => {
        // Paid short takes the .01 magic cents; the others take the override, or 25.00.
        const amount = then === 'short' ? '25.01' : undefined;
        const row = await createExpectedPayment(d.context(), expectedInput(set, d.now(), amount));
        if (then === 'pay' || then === 'short') await simulatePayment(d.context(), row.id);
        if (then === 'cancel') await cancelExpectedPayment(d.context(), row.id);
        if (then === 'lapse') await d.advance(5 * 86_400);
        return row.id;
      };
    },
    then === 'lapse',
  );
}

export const reconciliationRecipes: Recipe[] = [
  expected(
    'expected_payment.created',
    'Expects a credit of 25.00 over the next 3 days, with a reference.',
    'none',
  ),
  expected(
    'expected_payment.matched',
    'Expects a credit of 25.00 (or the amount given; its cents may choose a payer that does not match) with a reference, and has its payer pay it by ACH at once: matched.',
    'pay',
  ),
  expected(
    'expected_payment.partially_matched',
    'Expects 25.01 with a reference (the amount override does not apply); the payer pays 1.00 short (the .01 magic cents): partially matched.',
    'short',
  ),
  expected(
    'expected_payment.overdue',
    'Expects a credit over the next 3 days and advances the clock 5 days: nothing came, overdue.',
    'lapse',
  ),
  expected('expected_payment.canceled', 'Expects a credit, then cancels it.', 'cancel'),
];
