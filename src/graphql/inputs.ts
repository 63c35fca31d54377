import { builder } from './builder.ts';

export const CardInput = builder.inputType('CardInput', {
  description:
    'A card as the payer types it. The sandbox knows magic numbers that decline, ask for 3-D Secure, …',
  fields: (t) => ({
    number: t.string({
      required: true,
      description: 'The card number (spaces allowed); never stored in clear.',
    }),
    expMonth: t.int({ required: true, description: 'Expiry month, 1-12.' }),
    expYear: t.int({ required: true, description: 'Expiry year, four digits.' }),
    cvc: t.string({ required: true, description: 'The 3 or 4 digits on the card.' }),
    name: t.string({ description: "The cardholder's name." }),
  }),
});
