import { z } from 'zod';
import { timestamp, type Wire, wireAnswer } from '../../kernel/wire-resources.ts';
import type { ChaosSetting } from './chaos.service.ts';

export const ChaosWire = wireAnswer('chaos', {
  faults: z.union([z.string(), z.null()]).meta({
    description:
      'The faults injected into every keyed REST request and GraphQL query or mutation of the merchant without a Sandbank-Chaos header, in the chaos grammar (canonical form, e.g. "latency=200ms; error=0.3; status=503; seed=42"); null when none.',
  }),
  webhook_faults: z.union([z.string(), z.null()]).meta({
    description:
      'The faults injected into the webhook deliveries of the merchant, in the webhook chaos grammar (canonical form, e.g. "duplicate=0.1; delay=0.2; delay_for=5000ms; seed=42"): duplicates, delays and out-of-order deliveries; null when none.',
  }),
  updated_at: z.union([timestamp, z.null()]).meta({ description: 'When it was set; null when none is.' }),
}).meta({
  id: 'Chaos',
  description:
    "The merchant's chaos setting: faults (latency, errors, rate limits, timeouts) injected before API operations run, and faults (duplicates, delays, reordering) injected into webhook deliveries, to test a client's retries, timeouts and webhook handling. See docs/guide/chaos.md.",
});

export const SetChaosSchema = z
  .strictObject({
    faults: z
      .union([z.string().max(500), z.null()])
      .optional()
      .meta({
        description:
          'The API request faults, in the chaos grammar ("error=0.3; status=503; seed=42"); "" or "none" (on REST null too) clears them; left out, they stay as they are.',
      }),
    webhook_faults: z
      .union([z.string().max(500), z.null()])
      .optional()
      .meta({
        description:
          'The webhook delivery faults, in the webhook chaos grammar ("duplicate=0.1; reorder=0.2; seed=42"); "" or "none" (on REST null too) clears them; left out, they stay as they are.',
      }),
  })
  .refine((input) => input.faults !== undefined || input.webhook_faults !== undefined, {
    message: 'send faults, webhook_faults or both',
  })
  // The refinement above, as the document says it.
  .meta({
    id: 'SetChaosRequest',
    description: 'Send faults, webhook_faults or both.',
    anyOf: [{ required: ['faults'] }, { required: ['webhook_faults'] }],
  } as z.GlobalMeta);

/** The API representation of a merchant's chaos setting. */
export function chaosResource(setting: ChaosSetting): Wire<typeof ChaosWire> {
  return {
    object: 'chaos',
    faults: setting.faults,
    webhook_faults: setting.webhookFaults,
    updated_at: setting.updatedAt ? setting.updatedAt.toISOString() : null,
  };
}
