import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { graphqlObject } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { bankMessageOperations } from './bank-messages.operations.ts';
import { type BankMessage, messagesOf } from './bank-messages.read.ts';
import { Iso20022Message } from './bank-messages.resource.ts';
import './bank-messages.schema.ts';

export const Iso20022MessageRef = graphqlObject<BankMessage>(Iso20022Message, {
  // REST downloads the XML (GET /v1/iso20022_messages/{id}/file); GraphQL answers it.
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    xml: t.string({ description: 'The message as XML.', resolve: (row: BankMessage) => row.xml }),
  }),
});

builder.queryFields((t) => ({
  iso20022Messages: t.field({
    type: [Iso20022MessageRef],
    description:
      'The ISO 20022 messages of a transfer, payout, inbound transfer or request for payment, oldest first (none for an ACH entry).',
    args: {
      objectId: t.arg.id({ required: true, description: 'The object (tr_…, po_…, itr_…, rfp_…).' }),
    },
    resolve: (_root, args, ctx) => messagesOf(serviceContext(ctx), String(args.objectId)),
  }),
}));

mountGraphqlOperations(bankMessageOperations);
