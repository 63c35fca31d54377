import { graphqlObject } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { paymentRequestOperations } from './payment-requests.operations.ts';
import { PaymentRequest, type PaymentRequestRow } from './payment-requests.resource.ts';
import { paymentRequestsByIds } from './payment-requests.service.ts';

export const PaymentRequestRef = graphqlObject<PaymentRequestRow>(PaymentRequest, {
  interfaces: [NodeRef],
  names: { transfer: 'transferId' },
});

nodeKind('paymentRequest', PaymentRequestRef, paymentRequestsByIds);
mountGraphqlOperations(paymentRequestOperations);
