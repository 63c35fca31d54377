import { z } from 'zod';
import { CHANGE_CODES, REFUSAL_CODES } from '../bank-accounts/bank-accounts.corrections.ts';

/** The bodies of the NOC steps: the simulated RDFI's notification of change, and the merchant's refusal of one. */
export const simulateNocSchema = z.strictObject({
  // Checked by the service after the entry's state (409 before 400), so the list is metadata.
  code: z
    .string()
    .max(8)
    .meta({ enum: [...CHANGE_CODES] })
    .describe('The Nacha change code (C01-C07, C09, C13 are sent; C08, C10-C12 and C14 are refused).'),
  corrected_data: z
    .strictObject({
      routing_number: z.string().max(32).optional().describe('The corrected routing number.'),
      account_number: z.string().max(32).optional().describe('The corrected account number.'),
      account_type: z.enum(['checking', 'savings']).optional().describe('The corrected account type.'),
      name: z.string().max(100).optional().describe('The corrected name (22 characters at most).'),
      individual_id: z
        .string()
        .max(32)
        .optional()
        .describe('The corrected individual id (15 characters at most).'),
      addenda_information: z
        .string()
        .max(200)
        .optional()
        .describe('The corrected payment-related information.'),
    })
    .optional()
    .describe(
      'The corrected values (only the fields the code corrects); each field left out is derived from the entry.',
    ),
});
export type SimulateNocInput = z.output<typeof simulateNocSchema>;

export const refuseNocSchema = z.strictObject({
  code: z
    .string()
    .max(8)
    .meta({ enum: [...REFUSAL_CODES] })
    .describe('The refused-NOC code (C61-C69).'),
});
export type RefuseNocInput = z.output<typeof refuseNocSchema>;
