import { nyDateOf } from '../../kernel/calendar.ts';
import { isoDateTime, isoDocument, maxText, type XmlNode } from '../statements/statements.xml.ts';
import {
  accountNode,
  agentNode,
  amountNode,
  clearingOf,
  messageId,
  type Payment,
  partyNode,
  uetrOf,
} from './bank-messages.parties.ts';

/**
 * The interbank messages of a credit transfer on RTP, FedNow and Fedwire (ISO 20022): the credit
 * transfer itself (pacs.008.001.08), its status report (pacs.002.001.10) and a return of its funds
 * (pacs.004.001.10). Each is valid against the message's published schema.
 */
const settlement = (payment: Payment): XmlNode => [
  'SttlmInf',
  [
    ['SttlmMtd', 'CLRG'],
    ['ClrSys', [['Prtry', clearingOf(payment.rail)]]],
  ],
];

const original = (payment: Payment): XmlNode => [
  'OrgnlGrpInf',
  [
    ['OrgnlMsgId', messageId(payment.objectId, '008')],
    ['OrgnlMsgNmId', 'pacs.008.001.08'],
  ],
];

export function pacs008(payment: Payment, at: Date): string {
  return isoDocument('pacs.008.001.08', [
    'FIToFICstmrCdtTrf',
    [
      [
        'GrpHdr',
        [
          ['MsgId', messageId(payment.objectId, '008')],
          ['CreDtTm', isoDateTime(at)],
          ['NbOfTxs', '1'],
          settlement(payment),
        ],
      ],
      [
        'CdtTrfTxInf',
        [
          [
            'PmtId',
            [
              ['InstrId', maxText(payment.objectId, 35)],
              ['EndToEndId', maxText(payment.endToEndId, 35)],
              ['TxId', maxText(payment.objectId, 35)],
              ['UETR', uetrOf(payment.objectId)],
            ],
          ],
          amountNode('IntrBkSttlmAmt', payment.amount, payment.currency),
          ['IntrBkSttlmDt', nyDateOf(at)],
          ['ChrgBr', 'SLEV'],
          partyNode('Dbtr', payment.debtor),
          accountNode('DbtrAcct', payment.debtor),
          agentNode('DbtrAgt', payment.debtor.routing),
          agentNode('CdtrAgt', payment.creditor.routing),
          partyNode('Cdtr', payment.creditor),
          accountNode('CdtrAcct', payment.creditor),
          payment.remittance ? ['RmtInf', [['Ustrd', maxText(payment.remittance, 140)]]] : null,
        ],
      ],
    ],
  ]);
}

/** The status of a credit transfer: ACSC (settled) or RJCT with its reason. */
export function pacs002(
  payment: Payment,
  at: Date,
  status: { code: 'ACSC' | 'RJCT'; reason?: string | null },
): string {
  return isoDocument('pacs.002.001.10', [
    'FIToFIPmtStsRpt',
    [
      [
        'GrpHdr',
        [
          ['MsgId', messageId(payment.objectId, '002')],
          ['CreDtTm', isoDateTime(at)],
        ],
      ],
      [
        'TxInfAndSts',
        [
          original(payment),
          ['OrgnlEndToEndId', maxText(payment.endToEndId, 35)],
          ['OrgnlTxId', maxText(payment.objectId, 35)],
          ['OrgnlUETR', uetrOf(payment.objectId)],
          ['TxSts', status.code],
          status.reason ? ['StsRsnInf', [['Rsn', [['Cd', status.reason]]]]] : null,
          status.code === 'ACSC' ? ['FctvIntrBkSttlmDt', [['Dt', nyDateOf(at)]]] : null,
        ],
      ],
    ],
  ]);
}

/** A return of a credit transfer's funds, with its reason (AC04, AC01, FOCR, …). */
export function pacs004(payment: Payment, at: Date, reason: string): string {
  return isoDocument('pacs.004.001.10', [
    'PmtRtr',
    [
      [
        'GrpHdr',
        [
          ['MsgId', messageId(payment.objectId, '004')],
          ['CreDtTm', isoDateTime(at)],
          ['NbOfTxs', '1'],
          settlement(payment),
        ],
      ],
      [
        'TxInf',
        [
          ['RtrId', messageId(payment.objectId, 'RTR')],
          original(payment),
          ['OrgnlEndToEndId', maxText(payment.endToEndId, 35)],
          ['OrgnlTxId', maxText(payment.objectId, 35)],
          ['OrgnlUETR', uetrOf(payment.objectId)],
          amountNode('OrgnlIntrBkSttlmAmt', payment.amount, payment.currency),
          amountNode('RtrdIntrBkSttlmAmt', payment.amount, payment.currency),
          ['IntrBkSttlmDt', nyDateOf(at)],
          ['ChrgBr', 'SLEV'],
          ['RtrRsnInf', [['Rsn', [['Cd', maxText(reason, 4)]]]]],
        ],
      ],
    ],
  ]);
}
