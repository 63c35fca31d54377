import { graphqlObject, inputFor } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { reconciliationOperations } from './reconciliation.operations.ts';
import { ExpectedPayment, type ExpectedPaymentRow } from './reconciliation.resource.ts';
import {
  createExpectedPaymentSchema,
  ExpectedPaymentDirectionValues,
  ExpectedPaymentStateValues,
  listExpectedPaymentsQuery,
} from './reconciliation.schema.ts';
import { expectedPaymentsByIds } from './reconciliation.service.ts';

export const ExpectedPaymentRef = graphqlObject<ExpectedPaymentRow>(ExpectedPayment, {
  interfaces: [NodeRef],
  enums: { direction: enumOf(ExpectedPaymentDirectionValues), state: enumOf(ExpectedPaymentStateValues) },
});

inputFor(createExpectedPaymentSchema.shape.direction, enumOf(ExpectedPaymentDirectionValues));
inputFor(listExpectedPaymentsQuery.state.unwrap(), enumOf(ExpectedPaymentStateValues));
nodeKind('expectedPayment', ExpectedPaymentRef, expectedPaymentsByIds);
mountGraphqlOperations(reconciliationOperations);
