import { describedValues } from '../../kernel/described-values.ts';

export const BankMessageDirectionValues = describedValues(
  'Iso20022MessageDirection',
  "Whether the merchant's bank sent or received it.",
  { sent: "The merchant's bank sent it.", received: "The merchant's bank received it." },
);
