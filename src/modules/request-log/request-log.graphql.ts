import { graphqlObject } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { requestLogOperations } from './request-log.operations.ts';
import { RequestLog, type RequestLogRow } from './request-log.resource.ts';
import { RequestLogSourceValues } from './request-log.schema.ts';
import { requestLogsByIds } from './request-log.service.ts';

export const RequestLogRef = graphqlObject<RequestLogRow>(RequestLog, {
  interfaces: [NodeRef],
  enums: { source: enumOf(RequestLogSourceValues) },
});

nodeKind('request', RequestLogRef, requestLogsByIds);
mountGraphqlOperations(requestLogOperations);
