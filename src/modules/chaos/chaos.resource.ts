import { z } from 'zod';
import { timestamp, type Wire } from '../../kernel/wire-resources.ts';
import type { ChaosSetting } from './chaos.service.ts';

export const ChaosWire = z
  .object({
    object: z.literal('chaos').meta({ description: 'The kind of object.' }),
    faults: z.union([z.string(), z.null()]).meta({
      description:
        'The faults injected into every keyed REST request of the merchant without a Sandbank-Chaos header, in the chaos grammar (canonical form, e.g. "latency=200ms; error=0.3; status=503; seed=42"); null when none.',
    }),
    updated_at: z.union([timestamp, z.null()]).meta({ description: 'When it was set; null when none is.' }),
  })
  .meta({
    id: 'Chaos',
    description:
      "The merchant's chaos setting: faults (latency, errors, rate limits, timeouts) injected before operations run, to test a client's retries and timeouts. See docs/chaos.md.",
  });

export const SetChaosSchema = z
  .strictObject({
    faults: z.union([z.string().max(500), z.null()]).meta({
      description:
        'The faults, in the chaos grammar ("error=0.3; status=503; seed=42"); null, "" or "none" clears the setting.',
    }),
  })
  .meta({ id: 'SetChaosRequest' });

/** The API representation of a merchant's chaos setting. */
export function chaosResource(setting: ChaosSetting): Wire<typeof ChaosWire> {
  return {
    object: 'chaos',
    faults: setting.faults,
    updated_at: setting.updatedAt ? setting.updatedAt.toISOString() : null,
  };
}
