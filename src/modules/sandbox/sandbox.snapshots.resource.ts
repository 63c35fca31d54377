import { z } from 'zod';
import { defineObject, field } from '../../kernel/declare.ts';
import type { SnapshotRow } from './sandbox.snapshots.table.ts';

/** A snapshot as REST and GraphQL answer it: its name, when it was saved, and what it holds. */
export const Snapshot = defineObject<SnapshotRow>()(
  'Snapshot',
  'snapshot',
  "A merchant's sandbox saved under a name: every object (with the ledger, events and due work), its webhook endpoints and its clock, as they were. Restoring it puts them all back in one transaction.",
  {
    name: field.text('The name it is saved, restored and deleted by (unique per merchant).'),
    counts: field.custom<SnapshotRow>(
      z
        .record(z.string(), z.number().int().nonnegative())
        .meta({ description: 'Rows it holds, by table (collections, ledger_entries, webhook_endpoints…).' }),
      (row) => row.counts,
    ),
    objects: field.custom<SnapshotRow>(
      z.number().int().nonnegative().meta({ description: 'Rows it holds in all.' }),
      (row) => Object.values(row.counts).reduce((sum, n) => sum + n, 0),
    ),
    created_at: field.timestamp<SnapshotRow>('When it was saved, real time.'),
  },
);

export const SnapshotListWire = z
  .object({ data: z.array(Snapshot.wire).meta({ description: "The merchant's snapshots, by name." }) })
  .meta({ id: 'SnapshotList', description: "A merchant's snapshots." });

const nameField = z.string().meta({
  description: 'The name (1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit).',
});

export const SnapshotNameParam = z.object({ name: nameField });

export const SaveSnapshotBody = z.object({ name: nameField }).meta({
  id: 'SaveSnapshotRequest',
  description: 'The name to save the snapshot under (an existing one is replaced).',
});
