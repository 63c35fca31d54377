import {
  INSTANT_REJECT_ACCOUNTS,
  MAGIC_ACCOUNTS,
  RETURN_CODE_ACCOUNT,
  UNREACHABLE_ROUTING_NUMBER,
  UNREACHABLE_ROUTING_OUTCOME,
} from '../modules/transfers/transfers.rails.ts';

/**
 * The rails' magic bank accounts as the pages offer them (the dashboard's transfer and payout
 * forms, the hosted checkout's bank form): built from the rails' own lists, never retyped.
 */
export interface AccountChoice {
  /** The select's value. */
  key: string;
  routingNumber: string;
  accountNumber: string;
  outcome: string;
}

/** A routing number that passes the ABA checksum and means nothing special (README). */
export const TEST_ROUTING_NUMBER = '110000000';

function accountChoice(accountNumber: string, outcome: string): AccountChoice {
  return { key: accountNumber, routingNumber: TEST_ROUTING_NUMBER, accountNumber, outcome };
}

/** The magic account that simply succeeds (the forms' placeholder). */
export const ORDINARY_ACCOUNT =
  MAGIC_ACCOUNTS.find((account) => account.behavior.kind === 'succeeds')?.accountNumber ?? '000123456789';

/** The picker: every magic account of the rails, an example of 100XX, and the unreachable routing number. */
export const MAGIC_ACCOUNT_CHOICES: readonly AccountChoice[] = [
  ...MAGIC_ACCOUNTS.map((account) => accountChoice(account.accountNumber, account.outcome)),
  accountChoice(RETURN_CODE_ACCOUNT.example, RETURN_CODE_ACCOUNT.outcome),
  ...Object.entries(INSTANT_REJECT_ACCOUNTS).map(([accountNumber, reason]) =>
    accountChoice(accountNumber, `RTP and FedNow: rejected ${reason}; ACH: succeeds`),
  ),
  {
    key: `routing_${UNREACHABLE_ROUTING_NUMBER}`,
    routingNumber: UNREACHABLE_ROUTING_NUMBER,
    accountNumber: ORDINARY_ACCOUNT,
    outcome: UNREACHABLE_ROUTING_OUTCOME,
  },
];
