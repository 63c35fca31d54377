import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { graphqlObject } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { CurrencyCodeEnum } from '../../graphql/scalars.ts';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { statementFile, statementOperations } from './statements.operations.ts';
import { Statement, type StatementRow } from './statements.resource.ts';
import { IntradayReportFormatValues, StatementFileFormatValues } from './statements.schema.ts';
import { intradayDocument, statementDocument, statementsByIds } from './statements.service.ts';

const StatementFileFormatEnum = enumOf(StatementFileFormatValues);
const IntradayReportFormatEnum = enumOf(IntradayReportFormatValues);

export const StatementRef = graphqlObject<StatementRow>(Statement, {
  interfaces: [NodeRef],
  enums: { currency: CurrencyCodeEnum },
  // REST downloads the files (GET /v1/statements/{id}/file); GraphQL answers their text.
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    file: t.string({
      description: "The statement's file as text: BAI2, or ISO 20022 camt.053 XML.",
      args: { format: t.arg({ type: StatementFileFormatEnum, required: true, description: 'Which file.' }) },
      resolve: async (row: StatementRow, args: { format: 'bai2' | 'camt053' }, ctx: unknown) => {
        const service = serviceContext(ctx as never);
        return statementFile(await statementDocument(service.tx ?? service.db, row), args.format).body;
      },
    }),
  }),
});

nodeKind('statement', StatementRef, statementsByIds);

builder.queryFields((t) => ({
  intradayReport: t.string({
    description:
      "The intraday report of the banking day so far, up to the merchant's clock: BAI2 same-day data or ISO 20022 camt.052 XML.",
    args: {
      currency: t.arg({ type: CurrencyCodeEnum, required: true, description: "The account's currency." }),
      format: t.arg({ type: IntradayReportFormatEnum, required: true, description: 'Which format.' }),
    },
    resolve: async (_root, args, ctx) =>
      statementFile(await intradayDocument(serviceContext(ctx), args.currency as CurrencyCode), args.format)
        .body,
  }),
}));

mountGraphqlOperations(statementOperations);
