import type { WebhookTransport } from '../../kernel/webhook-transport.ts';
import { toWireJson } from '../../kernel/wire-json.ts';
import type { ServiceContext } from '../context.ts';
import type { EventRow } from '../events/events.service.ts';
import { eventResource } from '../webhooks/webhooks.payloads.ts';
import { accepted, type DeliveryRecord, deliver, type Signing, told } from './conformance.deliver.ts';
import type { Fixture } from './conformance.fixtures.ts';
import { fail, pass, timedOut, times, type Verdict } from './conformance.judge.ts';
import type { ObjectWatch } from './conformance.watch.ts';

/** What every scenario's steps share: the run's plan, its sends and waits, the common verdicts. */

/**
 * How long the run waits, once every scenario has sent its deliveries, before it counts the
 * handler's calls (at most the run's timeout): a handler's work may trail its answer.
 */
export const FINAL_WAIT_MS = 3000;
/** How old a replayed delivery's timestamp is (Standard Webhooks' tolerance is 5 minutes). */
export const STALE_SECONDS = 600;

export interface RunPlan {
  runId: string;
  url: string;
  /** The endpoint's current secret: what a correct handler verifies with. */
  secret: string;
  timeoutMs: number;
  seed: number;
  transport: WebhookTransport;
}

export interface Step {
  plan: RunPlan;
  fixture: Fixture;
  watch: ObjectWatch;
  deliveries: DeliveryRecord[];
  /** Seeded bytes: forged signatures and the secrets that are not the endpoint's. */
  bytes: (count: number) => Buffer;
  ctx: ServiceContext;
}

export const body = (event: EventRow) => toWireJson(eventResource(event));

export async function send(step: Step, label: string, id: string, text: string, signing: Signing) {
  const record = await deliver(step.plan.transport, step.plan.url, {
    label,
    id,
    body: text,
    signing,
    timeoutMs: step.plan.timeoutMs,
  });
  step.deliveries.push(record);
  return record;
}

export const valid = (step: Step, extra: readonly string[] = []): Signing => ({
  kind: 'valid',
  secrets: [...extra, step.plan.secret],
});

/** Waits for the handler's first write (up to the timeout); later ones are counted at the run's end. */
export async function settle(step: Step): Promise<void> {
  await step.watch.until((c) => c.writes >= 1, step.plan.timeoutMs);
}

/**
 * What a scenario found once it has sent everything: a verdict now (a delivery timed out or was
 * answered wrongly), or the judgement to make once the run's final wait is over (the handler's
 * calls counted then, late work included).
 */
export type Outcome = Verdict | (() => Verdict | Promise<Verdict>);

/** A delivery that must be accepted: a verdict when it was not, else null. */
export function mustAccept(record: DeliveryRecord, timeoutMs: number): Verdict | null {
  if (record.timed_out) return timedOut(`${told(record)}: answer within ${timeoutMs} ms.`);
  if (!accepted(record)) return fail(`${told(record)}; a delivery of a valid event is answered 2xx.`);
  return null;
}

/** Exactly one successful write, else why not. */
export function wroteOnce(step: Step, what: string): Verdict {
  const { writes } = step.watch.counts;
  const path = `POST /v1/collections/${step.fixture.collectionId}`;
  if (writes === 0)
    return fail(
      `${what}, but the handler never wrote the fulfilment (${path}) within ${step.plan.timeoutMs} ms.`,
    );
  if (writes > 1)
    return fail(
      `${what}, and the handler wrote the fulfilment ${times(writes)} (${path}): one event is handled once — deduplicate by webhook-id.`,
    );
  return pass;
}
