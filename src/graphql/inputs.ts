import { builder } from './builder.ts';

export const CardInput = builder.inputType('CardInput', {
  fields: (t) => ({
    number: t.string({ required: true }),
    expMonth: t.int({ required: true }),
    expYear: t.int({ required: true }),
    cvc: t.string({ required: true }),
    name: t.string(),
  }),
});

export function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== null && value !== undefined),
  );
}

/** A GraphQL CardInput as the REST body's `card`. */
export function cardFields(card: typeof CardInput.$inferInput): Record<string, unknown> {
  return withoutNulls({
    number: card.number,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    cvc: card.cvc,
    name: card.name,
  });
}
