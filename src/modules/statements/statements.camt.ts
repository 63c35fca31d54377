import { nyDateOf } from '../../kernel/calendar.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { formatDecimal } from '../../kernel/money.ts';
import { lineCode } from './statements.codes.ts';
import { SANDBANK_NAME, SANDBANK_ROUTING, type StatementDocument, totalsOf } from './statements.document.ts';
import type { StatementLine } from './statements.ledger.ts';
import { isoDateTime, isoDocument, maxText, type XmlNode } from './statements.xml.ts';

/**
 * A statement as ISO 20022 XML: camt.053.001.08 (BankToCustomerStatement) for a closed banking
 * day, camt.052.001.08 (BankToCustomerAccountReport) for the day so far. Balances: opening and
 * closing booked (OPBD/CLBD) and available (OPAV/CLAV), or the interim ones of a report
 * (ITBD/ITAV). One booked entry (Ntry) per line, with its bank transaction code.
 */
const amount = (minor: bigint, currency: CurrencyCode): XmlNode => [
  'Amt',
  formatDecimal(minor < 0n ? -minor : minor, currency),
  { Ccy: currency },
];
const direction = (minor: bigint): XmlNode => ['CdtDbtInd', minor < 0n ? 'DBIT' : 'CRDT'];

function balance(type: string, minor: bigint, currency: CurrencyCode, date: string): XmlNode {
  return [
    'Bal',
    [
      ['Tp', [['CdOrPrtry', [['Cd', type]]]]],
      amount(minor, currency),
      direction(minor),
      ['Dt', [['Dt', date]]],
    ],
  ];
}

function entry(line: StatementLine, currency: CurrencyCode): XmlNode {
  const codes = lineCode(line);
  const credit = line.amount > 0n;
  const party: XmlNode | null = line.counterparty
    ? [credit ? 'Dbtr' : 'Cdtr', [['Pty', [['Nm', maxText(line.counterparty, 140)]]]]]
    : null;
  return [
    'Ntry',
    [
      ['NtryRef', line.postingId],
      amount(line.amount, currency),
      direction(line.amount),
      ['Sts', [['Cd', 'BOOK']]],
      ['BookgDt', [['DtTm', isoDateTime(line.bookedAt)]]],
      ['ValDt', [['Dt', nyDateOf(line.bookedAt)]]],
      ['AcctSvcrRef', line.postingId],
      [
        'BkTxCd',
        [
          [
            'Domn',
            [
              ['Cd', codes.domain],
              [
                'Fmly',
                [
                  ['Cd', codes.family],
                  ['SubFmlyCd', codes.subFamily],
                ],
              ],
            ],
          ],
        ],
      ],
      [
        'NtryDtls',
        [
          [
            'TxDtls',
            [
              [
                'Refs',
                [
                  ['AcctSvcrRef', maxText(line.sourceId, 35)],
                  ['EndToEndId', maxText(line.reference ?? line.sourceId, 35)],
                ],
              ],
              party ? ['RltdPties', [party]] : null,
              line.description ? ['RmtInf', [['Ustrd', maxText(line.description, 140)]]] : null,
            ],
          ],
        ],
      ],
      ['AddtlNtryInf', maxText(codes.label, 500)],
    ],
  ];
}

export function statementCamt(doc: StatementDocument): string {
  const intraday = doc.kind === 'intraday';
  const totals = totalsOf(doc.lines);
  const net = totals.credits - totals.debits;
  const closingDate = doc.date;
  const balances = intraday
    ? [
        balance('OPBD', doc.opening.ledger, doc.currency, doc.date),
        balance('ITBD', doc.closing.ledger, doc.currency, doc.date),
        balance('OPAV', doc.opening.available, doc.currency, doc.date),
        balance('ITAV', doc.closing.available, doc.currency, doc.date),
      ]
    : [
        balance('OPBD', doc.opening.ledger, doc.currency, doc.date),
        balance('CLBD', doc.closing.ledger, doc.currency, closingDate),
        balance('OPAV', doc.opening.available, doc.currency, doc.date),
        balance('CLAV', doc.closing.available, doc.currency, closingDate),
      ];
  const report: XmlNode = [
    intraday ? 'Rpt' : 'Stmt',
    [
      ['Id', doc.id],
      ['ElctrncSeqNb', doc.date.replaceAll('-', '')],
      ['CreDtTm', isoDateTime(doc.createdAt)],
      [
        'FrToDt',
        [
          ['FrDtTm', isoDateTime(doc.periodStart)],
          ['ToDtTm', isoDateTime(doc.periodEnd)],
        ],
      ],
      [
        'Acct',
        [
          ['Id', [['Othr', [['Id', doc.account]]]]],
          ['Ccy', doc.currency],
          [
            'Svcr',
            [
              [
                'FinInstnId',
                [
                  [
                    'ClrSysMmbId',
                    [
                      ['ClrSysId', [['Cd', 'USABA']]],
                      ['MmbId', SANDBANK_ROUTING],
                    ],
                  ],
                  ['Nm', SANDBANK_NAME],
                ],
              ],
            ],
          ],
        ],
      ],
      ...balances,
      [
        'TxsSummry',
        [
          [
            'TtlNtries',
            [
              ['NbOfNtries', String(doc.lines.length)],
              ['Sum', formatDecimal(totals.credits + totals.debits, doc.currency)],
              ['TtlNetNtry', [['Amt', formatDecimal(net < 0n ? -net : net, doc.currency)], direction(net)]],
            ],
          ],
          [
            'TtlCdtNtries',
            [
              ['NbOfNtries', String(totals.creditCount)],
              ['Sum', formatDecimal(totals.credits, doc.currency)],
            ],
          ],
          [
            'TtlDbtNtries',
            [
              ['NbOfNtries', String(totals.debitCount)],
              ['Sum', formatDecimal(totals.debits, doc.currency)],
            ],
          ],
        ],
      ],
      ...doc.lines.map((line) => entry(line, doc.currency)),
    ],
  ];
  const header: XmlNode = [
    'GrpHdr',
    [
      ['MsgId', maxText(`${doc.id}-${doc.createdAt.getTime().toString(36)}`, 35)],
      ['CreDtTm', isoDateTime(doc.createdAt)],
    ],
  ];
  return intraday
    ? isoDocument('camt.052.001.08', ['BkToCstmrAcctRpt', [header, report]])
    : isoDocument('camt.053.001.08', ['BkToCstmrStmt', [header, report]]);
}
