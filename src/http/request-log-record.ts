/**
 * What the GraphQL server tells the request log about one HTTP request: the merchant its context
 * authenticated, the operation and its variables as parsed, and the answer's text. app.ts hands it
 * in with the request, src/api/graphql/request-log.ts and the context fill it, and
 * src/request-log-capture.ts reads it.
 */
export interface GraphQLRequestRecord {
  merchantId: string | null;
  viaSession: boolean;
  /** The operation's name, or its first root field when it has none. */
  operation: string | null;
  /** Whether every root field is a read of the log itself (not logged, as on REST). */
  readsLog: boolean;
  query: string | null;
  operationName: string | null;
  variables: unknown;
  responseText: string | null;
}

export function graphqlRequestRecord(): GraphQLRequestRecord {
  return {
    merchantId: null,
    viaSession: false,
    operation: null,
    readsLog: false,
    query: null,
    operationName: null,
    variables: undefined,
    responseText: null,
  };
}
