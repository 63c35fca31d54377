import { describedValues } from '../../kernel/described-values.ts';

export const ACH_FILE_KINDS = ['sent', 'returns', 'received'] as const;

export const AchFileKindValues = describedValues('AchFileKind', 'Which ACH file it is.', {
  sent: 'The entries the merchant sent in one submission window, as Sandbank sends them to the ACH operator.',
  returns:
    'The returns (addenda 99) and notifications of change (COR batches, addenda 98) the operator sent back on a banking day.',
  received: 'The entries other originators sent the merchant, received on a banking day.',
});
