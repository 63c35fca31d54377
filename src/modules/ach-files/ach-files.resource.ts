import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import { type NachaFile, nachaTotals } from './ach-files.nacha.ts';
import { type AchFileKind, parseAchFileId } from './ach-files.read.ts';
import { ACH_FILE_KINDS } from './ach-files.schema.ts';

/** An ACH file as the API describes it: its kind, its window or day, its controls. */
export interface AchFileView {
  id: string;
  kind: AchFileKind;
  key: string;
  file: NachaFile;
}

export function achFileView(id: string, file: NachaFile): AchFileView {
  const { kind, key } = parseAchFileId(id);
  return { id, kind, key, file };
}

const totals = (row: AchFileView) => nachaTotals(row.file);

export const AchFile = defineObject<AchFileView>()(
  'AchFile',
  'ach_file',
  "A NACHA-format file of the merchant's ACH entries, as the banks exchange it: the file Sandbank sends the ACH operator for a submission window (sent), the returns and notifications of change the operator sends back on a banking day (returns), or the entries other originators sent the merchant on a banking day (received). Read from the entries each time.",
  {
    kind: field.enum(
      ACH_FILE_KINDS,
      'sent: the entries of one submission window; returns: returns (addenda 99) and notifications of change (COR, addenda 98) received on a banking day; received: entries of other originators received on a banking day.',
    ),
    window_at: field.nullableTimestamp<AchFileView>(
      'The submission window (its cut-off) of a sent file; null for the others.',
      (row) => (row.kind === 'sent' ? new Date(row.key) : null),
    ),
    date: field.text<AchFileView>(
      "The banking day (New York) of a returns or received file; the window's day for a sent one.",
      (row) => row.key.slice(0, 10),
    ),
    batch_count: field.int<AchFileView>(
      'Batches (one per SEC code and description).',
      (row) => totals(row).batchCount,
    ),
    entry_and_addenda_count: field.int<AchFileView>(
      'Entry detail and addenda records.',
      (row) => totals(row).entryAndAddendaCount,
    ),
    entry_hash: field.text<AchFileView>(
      "The entry hash: the sum of the entries' 8-digit receiving DFI identifications, its last 10 digits.",
      (row) => totals(row).entryHash,
    ),
    total_debit: field.money<AchFileView>('The total of the debit entries.', (row) => ({
      amount: totals(row).totalDebit,
      currency: 'USD',
    })),
    total_credit: field.money<AchFileView>('The total of the credit entries.', (row) => ({
      amount: totals(row).totalCredit,
      currency: 'USD',
    })),
    sec_codes: field.strings<AchFileView>(
      z
        .array(z.string())
        .meta({ description: 'The SEC codes of its batches (COR for notifications of change).' }),
      (row) => row.file.batches.map((batch) => batch.sec),
    ),
    file_url: field.url<AchFileView>(
      'Where the file is downloaded (text/plain).',
      (row, rc) => `${rc.publicUrl}/v1/ach_files/${row.id}/file`,
    ),
  },
);
