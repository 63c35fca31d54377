import { nyDateOf } from '../../kernel/calendar.ts';
import { isoDateTime, isoDocument, maxText } from '../statements/statements.xml.ts';
import {
  accountNode,
  agentNode,
  amountNode,
  messageId,
  type Payment,
  partyNode,
} from './bank-messages.parties.ts';

/**
 * The messages of a request for payment (ISO 20022): the request (pain.013.001.07, a creditor
 * asking a debtor to pay) and the debtor's answer (pain.014.001.07: ACTC accepted, RJCT rejected
 * with a reason). The payment that follows is a credit transfer with messages of its own.
 */
export function pain013(request: Payment, at: Date, expiresAt: Date): string {
  return isoDocument('pain.013.001.07', [
    'CdtrPmtActvtnReq',
    [
      [
        'GrpHdr',
        [
          ['MsgId', messageId(request.objectId, '013')],
          ['CreDtTm', isoDateTime(at)],
          ['NbOfTxs', '1'],
          partyNode('InitgPty', request.creditor),
        ],
      ],
      [
        'PmtInf',
        [
          ['PmtInfId', maxText(request.objectId, 35)],
          ['PmtMtd', 'TRF'],
          ['ReqdExctnDt', [['Dt', nyDateOf(at)]]],
          ['XpryDt', [['DtTm', isoDateTime(expiresAt)]]],
          partyNode('Dbtr', request.debtor),
          accountNode('DbtrAcct', request.debtor),
          agentNode('DbtrAgt', request.debtor.routing),
          [
            'CdtTrfTx',
            [
              ['PmtId', [['EndToEndId', maxText(request.endToEndId, 35)]]],
              ['Amt', [amountNode('InstdAmt', request.amount, request.currency)]],
              ['ChrgBr', 'SLEV'],
              agentNode('CdtrAgt', request.creditor.routing),
              partyNode('Cdtr', request.creditor),
              accountNode('CdtrAcct', request.creditor),
              request.remittance ? ['RmtInf', [['Ustrd', maxText(request.remittance, 140)]]] : null,
            ],
          ],
        ],
      ],
    ],
  ]);
}

export function pain014(
  request: Payment,
  at: Date,
  status: { code: 'ACTC' | 'RJCT'; reason?: string | null },
): string {
  return isoDocument('pain.014.001.07', [
    'CdtrPmtActvtnReqStsRpt',
    [
      [
        'GrpHdr',
        [
          ['MsgId', messageId(request.objectId, '014')],
          ['CreDtTm', isoDateTime(at)],
          partyNode('InitgPty', request.debtor),
        ],
      ],
      [
        'OrgnlGrpInfAndSts',
        [
          ['OrgnlMsgId', messageId(request.objectId, '013')],
          ['OrgnlMsgNmId', 'pain.013.001.07'],
        ],
      ],
      [
        'OrgnlPmtInfAndSts',
        [
          ['OrgnlPmtInfId', maxText(request.objectId, 35)],
          [
            'TxInfAndSts',
            [
              ['OrgnlEndToEndId', maxText(request.endToEndId, 35)],
              ['TxSts', status.code],
              status.reason ? ['StsRsnInf', [['Rsn', [['Cd', status.reason]]]]] : null,
            ],
          ],
        ],
      ],
    ],
  ]);
}
