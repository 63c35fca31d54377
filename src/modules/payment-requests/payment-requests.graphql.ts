import { graphqlObject, inputFor } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { TransferCounterpartyInput } from '../transfers/transfers.graphql.ts';
import { paymentRequestOperations } from './payment-requests.operations.ts';
import { PaymentRequest, type PaymentRequestRow } from './payment-requests.resource.ts';
import { simulatePaymentRequestSchema } from './payment-requests.schema.ts';
import { paymentRequestsByIds } from './payment-requests.service.ts';

export const PaymentRequestRef = graphqlObject<PaymentRequestRow>(PaymentRequest, {
  interfaces: [NodeRef],
  names: { transfer: 'transferId' },
});

nodeKind('paymentRequest', PaymentRequestRef, paymentRequestsByIds);
// The requester is a bank account as a transfer's counterparty is (its own description).
inputFor(simulatePaymentRequestSchema.shape.requester, TransferCounterpartyInput);
mountGraphqlOperations(paymentRequestOperations);
