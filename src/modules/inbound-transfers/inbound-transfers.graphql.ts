import { builder } from '../../graphql/builder.ts';
import { graphqlObject, inputFor } from '../../graphql/derive.ts';
import { enumOf } from '../../graphql/enums.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { NodeRef, nodeKind } from '../../graphql/node.ts';
import { hasPrefix } from '../../kernel/ids.ts';
import { inboundTransferOperations } from './inbound-transfers.operations.ts';
import { InboundTransfer, type InboundTransferRow, OriginatorWire } from './inbound-transfers.resource.ts';
import {
  createInboundTransferSchema,
  InboundTransferDirectionValues,
  InboundTransferStateValues,
  listInboundTransfersQuery,
} from './inbound-transfers.schema.ts';
import { inboundTransfersByIds } from './inbound-transfers.service.ts';

const InboundStateEnum = enumOf(InboundTransferStateValues);
const DirectionEnum = enumOf(InboundTransferDirectionValues);

const originator = OriginatorWire.shape;

const OriginatorRef = builder.objectRef<InboundTransferRow>('InboundOriginator').implement({
  description: OriginatorWire.description ?? '',
  fields: (t) => ({
    name: t.exposeString('originatorName', { description: originator.name.description ?? '' }),
    routingNumber: t.exposeString('originatorRoutingNumber', {
      description: originator.routing_number.description ?? '',
    }),
    accountNumberLast4: t.exposeString('originatorAccountLast4', {
      description: 'The last 4 digits of its account number.',
    }),
  }),
});

export const InboundTransferRef = graphqlObject<InboundTransferRow>(InboundTransfer, {
  interfaces: [NodeRef],
  isTypeOf: (value) => hasPrefix((value as { id: string }).id, 'inboundTransfer'),
  // GraphQL answers the SEC and return codes as plain strings.
  enums: {
    direction: DirectionEnum,
    state: InboundStateEnum,
    sec_code: 'String',
    return_code: 'String',
  },
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    originator: t.field({
      type: OriginatorRef,
      description: 'Where it comes from.',
      resolve: (row: InboundTransferRow) => row,
    }),
  }),
});

nodeKind('inboundTransfer', InboundTransferRef, inboundTransfersByIds);

const OriginatorInput = builder.inputType('InboundOriginatorInput', {
  description: 'The outside account an inbound transfer comes from.',
  fields: (t) => ({
    name: t.string({ required: true, description: "The originator's name." }),
    routingNumber: t.string({
      required: true,
      description: 'The ABA routing number (9 digits, checksummed).',
    }),
    accountNumber: t.string({ required: true, description: 'The account number (4-17 digits).' }),
  }),
});

// The GraphQL types of body and query fields their schemas do not name: the originator (without
// an account type), the direction, the SEC code (a plain string) and the state filter.
const body = createInboundTransferSchema.shape;
inputFor(body.originator, OriginatorInput);
inputFor(body.direction, DirectionEnum);
inputFor(body.sec_code.unwrap(), 'String');
inputFor(listInboundTransfersQuery.state.unwrap(), InboundStateEnum);

mountGraphqlOperations(inboundTransferOperations);
