import { createHash } from 'node:crypto';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { merchantAccountNumber, SANDBANK_NAME, SANDBANK_ROUTING } from '../statements/statements.document.ts';
import { maxText, type XmlNode } from '../statements/statements.xml.ts';

/** The parts of a payment message: who pays whom, through which banks, how much, under which ids. */
export interface Party {
  name: string;
  /** The account: the full number, or its last 4 digits behind X's when only those are kept. */
  account: string;
  routing: string;
}

export interface Payment {
  /** The object the message is about (tr_…, po_…, itr_…, rfp_…). */
  objectId: string;
  rail: string;
  amount: bigint;
  currency: CurrencyCode;
  debtor: Party;
  creditor: Party;
  endToEndId: string;
  remittance: string | null;
}

/** The merchant as a party: its account at Sandbank. */
export const merchantParty = (merchant: { id: string; name: string }): Party => ({
  name: merchant.name,
  account: merchantAccountNumber(merchant.id, 'USD'),
  routing: SANDBANK_ROUTING,
});

/** A counterparty known by its last 4 digits (or its full number when saved). */
export const counterpartyParty = (
  name: string,
  routing: string,
  last4: string,
  full?: string | null,
): Party => ({
  name,
  account: full ?? `XXXXXXXX${last4}`,
  routing,
});

/** A UUID v4 of the object, the same every time: the message's UETR. */
export function uetrOf(objectId: string): string {
  const hex = createHash('sha256').update(objectId).digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The clearing system of a rail (a proprietary name: RTP, FEDNOW or FEDWIRE). */
export const clearingOf = (rail: string) =>
  ({ rtp: 'RTP', fednow: 'FEDNOW', wire: 'FEDWIRE' })[rail] ?? rail.toUpperCase();

export const amountNode = (name: string, amount: bigint, currency: CurrencyCode): XmlNode => [
  name,
  formatDecimal(amount, currency),
  { Ccy: currency },
];

export const agentNode = (name: string, routing: string): XmlNode => [
  name,
  [
    [
      'FinInstnId',
      [
        [
          'ClrSysMmbId',
          [
            ['ClrSysId', [['Cd', 'USABA']]],
            ['MmbId', routing],
          ],
        ],
        ...(routing === SANDBANK_ROUTING ? [['Nm', SANDBANK_NAME] as XmlNode] : []),
      ],
    ],
  ],
];

export const partyNode = (name: string, party: Party): XmlNode => [name, [['Nm', maxText(party.name, 140)]]];

export const accountNode = (name: string, party: Party): XmlNode => [
  name,
  [['Id', [['Othr', [['Id', maxText(party.account, 34)]]]]]],
];

/** A message id: the object's id and the message's number, within 35 characters. */
export const messageId = (objectId: string, suffix: string) => maxText(`${objectId}-${suffix}`, 35);
