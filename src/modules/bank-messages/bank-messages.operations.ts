import { z } from 'zod';
import { defineOperation } from '../operation.ts';
import { messageById, messagesOf } from './bank-messages.read.ts';
import { Iso20022Message } from './bank-messages.resource.ts';

/** The ISO 20022 message operations, each declared once: its REST route and its GraphQL field. */

const TAGS = ['Statements'];
const idParam = z.object({
  id: z.string().min(1).max(255).describe("The message's id: its object's id and type (tr_….pacs.008)."),
});

export const bankMessageOperations = [
  defineOperation({
    name: 'listIso20022Messages',
    method: 'get',
    path: '/iso20022_messages',
    tags: TAGS,
    summary: 'The ISO 20022 messages of a transfer, payout, inbound transfer or request for payment',
    description:
      'Oldest first, all in one page: an RTP, FedNow or Fedwire credit transfer has its pacs.008, the pacs.002 of its outcome and the pacs.004 of a return; a request for payment its pain.013 and the pain.014 that answered it. An ACH entry has none (its files: GET /v1/ach_files).',
    query: z.strictObject({
      object_id: z
        .string()
        .min(1)
        .max(255)
        .describe(
          'The transfer (tr_…), payout (po_…), inbound transfer (itr_…) or request for payment (rfp_…).',
        ),
    }),
    errors: ['resource_not_found'],
    output: Iso20022Message,
    list: true,
    run: async (ctx, { query }) => ({
      data: await messagesOf(ctx, query.object_id),
      hasMore: false,
      nextCursor: null,
    }),
    // GraphQL's iso20022Messages(objectId) is written by hand (bank-messages.graphql.ts): a list, not a page.
    graphql: false,
  }),
  defineOperation({
    name: 'getIso20022Message',
    method: 'get',
    path: '/iso20022_messages/{id}',
    tags: TAGS,
    summary: 'Retrieve an ISO 20022 message',
    params: idParam,
    output: Iso20022Message,
    run: (ctx, { params }) => messageById(ctx, params.id),
    graphql: { name: 'iso20022Message' },
  }),
  defineOperation({
    name: 'downloadIso20022Message',
    method: 'get',
    path: '/iso20022_messages/{id}/file',
    tags: TAGS,
    summary: "Download an ISO 20022 message's XML",
    params: idParam,
    output: Iso20022Message,
    file: { mediaTypes: ['application/xml; charset=utf-8'] },
    run: async (ctx, { params }) => {
      const found = await messageById(ctx, params.id);
      return { body: found.xml, contentType: 'application/xml; charset=utf-8', filename: `${found.id}.xml` };
    },
    graphql: false,
  }),
];
