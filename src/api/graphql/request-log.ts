import { type DocumentNode, getOperationAST, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLRequestRecord } from '../../http/request-log-record.ts';
import { UNLOGGED_OPERATIONS } from '../../modules/request-log/request-log.operations.ts';

/**
 * What the request log keeps of a GraphQL request over HTTP (app.ts passes a record in with it):
 * its query, operation name and variables as sent, and the operation it names — its name, or its
 * first root field when it has none — once the document is parsed. The merchant is set by the
 * context (yoga.ts), when it authenticates. Requests over graphql-ws carry no record.
 */

type WithRecord = { requestLog?: GraphQLRequestRecord };

function recordOf(context: unknown): GraphQLRequestRecord | undefined {
  return (context as WithRecord | undefined)?.requestLog;
}

function operationOf(record: GraphQLRequestRecord, document: DocumentNode): void {
  const operation = getOperationAST(document, record.operationName ?? undefined);
  if (!operation) return;
  const roots = operation.selectionSet.selections;
  const [first] = roots;
  record.operation = operation.name?.value ?? (first?.kind === Kind.FIELD ? first.name.value : null);
  record.readsLog =
    roots.length > 0 &&
    roots.every((root) => root.kind === Kind.FIELD && UNLOGGED_OPERATIONS.has(root.name.value));
}

export function requestLogPlugin(): Plugin {
  return {
    onParams({ params, context }) {
      const record = recordOf(context);
      if (!record) return;
      record.query = typeof params.query === 'string' ? params.query : null;
      record.operationName = typeof params.operationName === 'string' ? params.operationName : null;
      record.variables = params.variables;
    },
    onParse({ context }) {
      const record = recordOf(context);
      if (!record) return;
      return ({ result }) => {
        if (result && typeof result === 'object' && (result as DocumentNode).kind === Kind.DOCUMENT)
          operationOf(record, result as DocumentNode);
      };
    },
  };
}
