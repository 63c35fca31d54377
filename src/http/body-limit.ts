/**
 * The largest request body the server reads, on every surface: a REST JSON body, a GraphQL request,
 * a graphql-ws message and a dashboard form (a bigger one is a 413).
 */
export const MAX_BODY_BYTES = 64 * 1024;
