import { z } from 'zod';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { dbOf } from '../context.ts';
import { defineOperation, type FileAnswer } from '../operation.ts';
import { statementBai2 } from './statements.bai2.ts';
import { statementCamt } from './statements.camt.ts';
import type { StatementDocument } from './statements.document.ts';
import { type IntradayFormat, Statement, type StatementFormat } from './statements.resource.ts';
import {
  createStatementFieldCodes,
  createStatementSchema,
  intradayQuery,
  listStatementsQuery,
  statementFileQuery,
} from './statements.schema.ts';
import {
  createStatement,
  getStatement,
  intradayDocument,
  listStatements,
  statementDocument,
} from './statements.service.ts';

/** The statement operations, each declared once: its REST route and its GraphQL field. */

const TAGS = ['Statements'];
const idParam = z.object({ id: z.string().min(1).max(255).describe("The statement's id (stmt_…).") });

export const BAI2_TYPE = 'text/plain; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';

/** A statement or a report as a file of the format asked for. */
export function statementFile(doc: StatementDocument, format: StatementFormat | IntradayFormat): FileAnswer {
  const stem = `${doc.id}`;
  if (format === 'bai2')
    return { body: statementBai2(doc, 1), contentType: BAI2_TYPE, filename: `${stem}.bai` };
  return { body: statementCamt(doc), contentType: XML_TYPE, filename: `${stem}.${format}.xml` };
}

export const statementOperations = [
  defineOperation({
    name: 'createStatement',
    method: 'post',
    path: '/statements',
    tags: TAGS,
    summary: 'The statement of a past banking day (produced now if the day had none)',
    description:
      "The end of each banking day on the merchant's clock produces the statement of every currency with activity that day (statement.created). This asks for any past banking day's, activity or not; a day that has one answers it. 400 parameter_invalid for a weekend or a Federal Reserve holiday; 409 statement_not_ready, with ready_at, before the day has ended.",
    body: createStatementSchema,
    codes: createStatementFieldCodes,
    errors: ['currency_unsupported', 'statement_not_ready'],
    output: Statement,
    run: (ctx, { body }) => createStatement(ctx, body),
    graphql: { reload: getStatement },
  }),
  defineOperation({
    name: 'listStatements',
    method: 'get',
    path: '/statements',
    tags: TAGS,
    summary: 'List statements, newest first',
    query: listQuerySchema.extend(listStatementsQuery),
    codes: { currency: 'currency_unsupported' },
    errors: ['currency_unsupported'],
    output: Statement,
    list: true,
    run: (ctx, { query }) => listStatements(ctx, query),
    graphql: { name: 'statements', filters: { currency: 'currency', date: 'date' } },
  }),
  defineOperation({
    name: 'getStatement',
    method: 'get',
    path: '/statements/{id}',
    tags: TAGS,
    summary: 'Retrieve a statement',
    params: idParam,
    output: Statement,
    run: (ctx, { params }) => getStatement(ctx, params.id),
    graphql: { name: 'statement' },
  }),
  defineOperation({
    name: 'downloadStatement',
    method: 'get',
    path: '/statements/{id}/file',
    tags: TAGS,
    summary: "Download a statement's file: BAI2 or camt.053",
    description:
      'The file as a bank sends it: BAI2 (text/plain) or ISO 20022 camt.053.001.08 (application/xml). Written from the ledger each time it is asked for, always the same for a closed day.',
    params: idParam,
    query: statementFileQuery,
    output: Statement,
    file: { mediaTypes: [BAI2_TYPE, XML_TYPE] },
    run: async (ctx, { params, query }) =>
      statementFile(await statementDocument(dbOf(ctx), await getStatement(ctx, params.id)), query.format),
    graphql: false,
  }),
  defineOperation({
    name: 'downloadIntradayReport',
    method: 'get',
    path: '/intraday_report',
    tags: TAGS,
    summary: 'Download the intraday report of the banking day so far: BAI2 or camt.052',
    description:
      "The current statement period up to the merchant's clock: opening balances, current (interim) balances and every line booked so far, in BAI2 same-day (as-of-date modifier 3) or ISO 20022 camt.052.001.08.",
    query: intradayQuery,
    codes: { currency: 'currency_unsupported' },
    errors: ['currency_unsupported'],
    output: Statement,
    file: { mediaTypes: [BAI2_TYPE, XML_TYPE] },
    run: async (ctx, { query }) =>
      statementFile(await intradayDocument(ctx, query.currency as CurrencyCode), query.format),
    graphql: false,
  }),
];
