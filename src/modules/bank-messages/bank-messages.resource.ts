import { defineObject, field } from '../../kernel/declare.ts';
import type { BankMessage } from './bank-messages.read.ts';

export const Iso20022Message = defineObject<BankMessage>()(
  'Iso20022Message',
  'iso20022_message',
  "An ISO 20022 message of a credit transfer on RTP, FedNow or Fedwire, or of a request for payment, as the merchant's bank sent or received it. Its id is the object's id and the message's type (tr_….pacs.008).",
  {
    object_id: field.text('The transfer, payout, inbound transfer or request for payment it is about.'),
    type: field.text(
      'The message: pacs.008 (the credit transfer), pacs.002 (its status: ACSC settled, RJCT rejected), pacs.004 (a return of its funds), pain.013 (a request for payment) or pain.014 (its answer: ACTC accepted, RJCT rejected).',
    ),
    definition: field.text('The message definition and version (pacs.008.001.08): its schema.'),
    direction: field.enum(['sent', 'received'], "Whether the merchant's bank sent or received it."),
    created_at: field.timestamp<BankMessage>('When it was sent or received, clock time.', (row) => row.at),
    xml_url: field.url<BankMessage>(
      'Where its XML is downloaded (application/xml).',
      (row, rc) => `${rc.publicUrl}/v1/iso20022_messages/${row.id}/file`,
    ),
  },
);
