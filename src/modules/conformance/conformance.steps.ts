import { eq } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import { collections } from '../collections/collections.table.ts';
import { accepted, refused, type Signing, told } from './conformance.deliver.ts';
import { fail, pass, timedOut, times } from './conformance.judge.ts';
import type { ScenarioId } from './conformance.scenarios.ts';
import {
  body,
  mustAccept,
  type Outcome,
  STALE_SECONDS,
  type Step,
  send,
  settle,
  valid,
  wroteOnce,
} from './conformance.step-kit.ts';

export type { RunPlan, Step } from './conformance.step-kit.ts';

/** How long after the failed write the event is sent again (at most the run's timeout). */
const RETRY_AFTER_MS = 2000;

/**
 * What each scenario sends and how it judges what the handler answered and did (its calls on the
 * scenario's collection). docs/guide/webhook-conformance.md describes them in the same order.
 */

async function validDelivery(step: Step): Promise<Outcome> {
  const record = await send(
    step,
    'first',
    step.fixture.succeeded.id,
    body(step.fixture.succeeded),
    valid(step),
  );
  const refusal = mustAccept(record, step.plan.timeoutMs);
  if (refusal) return refusal;
  await settle(step);
  return () => wroteOnce(step, told(record));
}

async function forged(step: Step, signing: Signing, what: string): Promise<Outcome> {
  const event = step.fixture.succeeded;
  const record = await send(step, 'forged', event.id, body(event), signing);
  if (record.timed_out) return timedOut(`${told(record)}; refuse it at once with a 4xx.`);
  return () => {
    const { writes } = step.watch.counts;
    const acted = writes > 0 ? ` and the handler wrote the fulfilment ${times(writes)}` : '';
    if (accepted(record))
      return fail(
        `${told(record)}${acted}: it was ${what}. Verify the webhook-signature before anything else.`,
      );
    if (!refused(record))
      return fail(
        `${told(record)}${acted}: it was ${what}; refuse it with a 4xx (a 5xx asks for it to be sent again).`,
      );
    if (writes > 0)
      return fail(
        `${told(record)}, yet the handler wrote the fulfilment ${times(writes)}: a refused delivery does nothing.`,
      );
    return pass;
  };
}

async function duplicateSequential(step: Step): Promise<Outcome> {
  const event = step.fixture.succeeded;
  const first = await send(step, 'first', event.id, body(event), valid(step));
  const refusal = mustAccept(first, step.plan.timeoutMs);
  if (refusal) return refusal;
  await step.watch.until((c) => c.writes >= 1, step.plan.timeoutMs);
  const second = await send(step, 'duplicate', event.id, body(event), valid(step));
  const again = mustAccept(second, step.plan.timeoutMs);
  if (again)
    return again.outcome === 'failed'
      ? fail(`${told(second)}: a duplicate is answered 2xx (the event was handled), else it is sent again.`)
      : again;
  await settle(step);
  return () => wroteOnce(step, 'The same event was delivered twice');
}

async function duplicateConcurrent(step: Step): Promise<Outcome> {
  const event = step.fixture.succeeded;
  const records = await Promise.all(
    [1, 2, 3].map((n) => send(step, `copy ${n} of 3`, event.id, body(event), valid(step))),
  );
  for (const record of records) {
    const refusal = mustAccept(record, step.plan.timeoutMs);
    if (refusal) return refusal;
  }
  await settle(step);
  return () => wroteOnce(step, 'The same event was delivered three times at once');
}

async function outOfOrder(step: Step): Promise<Outcome> {
  const { succeeded, created } = step.fixture;
  const later = await send(
    step,
    'collection.succeeded (sent first)',
    succeeded.id,
    body(succeeded),
    valid(step),
  );
  const refusal = mustAccept(later, step.plan.timeoutMs);
  if (refusal) return refusal;
  await step.watch.until((c) => c.writes >= 1, step.plan.timeoutMs);
  const earlier = await send(
    step,
    'collection.created (sent second)',
    created.id,
    body(created),
    valid(step),
  );
  const refusal2 = mustAccept(earlier, step.plan.timeoutMs);
  if (refusal2) return refusal2;
  return async () => {
    const [row] = await step.ctx.db
      .select({ metadata: collections.metadata })
      .from(collections)
      .where(eq(collections.id, step.fixture.collectionId));
    const view = row?.metadata.fulfilment;
    if (view === undefined)
      return fail('Neither event led to a fulfilment written on the collection (metadata.fulfilment).');
    if (view !== 'succeeded')
      return fail(
        `The last fulfilment written says "${view}", but the collection is succeeded: the handler took collection.created, delivered last, as the newer news. Read the object (GET /v1/collections/{id}) or compare created_at instead of trusting the order of arrival.`,
      );
    return pass;
  };
}

async function slowAcknowledgement(step: Step): Promise<Outcome> {
  const record = await send(
    step,
    'first',
    step.fixture.succeeded.id,
    body(step.fixture.succeeded),
    valid(step),
  );
  if (record.timed_out)
    return timedOut(
      step.watch.arrived > 0
        ? `${told(record)}: Sandbank answered the handler's calls on ${step.fixture.collectionId} only after ${step.plan.timeoutMs + 1000} ms, on purpose, and the handler waited for them before answering. Acknowledge first (2xx), then do the work.`
        : `${told(record)}, and the handler made no call on ${step.fixture.collectionId}: answer within ${step.plan.timeoutMs} ms.`,
    );
  if (!accepted(record)) return fail(`${told(record)}; a delivery of a valid event is answered 2xx.`);
  return pass;
}

async function retryAfterFailure(step: Step): Promise<Outcome> {
  const event = step.fixture.succeeded;
  const first = await send(step, 'first', event.id, body(event), valid(step));
  if (first.timed_out) return timedOut(`${told(first)}: answer within ${step.plan.timeoutMs} ms.`);
  await step.watch.until((c) => c.failed_writes >= 1, step.plan.timeoutMs);
  if (step.watch.counts.failed_writes === 0)
    return fail(
      `${told(first)}, but the handler never tried to write the fulfilment within ${step.plan.timeoutMs} ms.`,
    );
  // A sender's retry comes seconds later: the handler has taken in its failure by then (even on a
  // loaded machine), so a handler that keeps the event unhandled meets the retry as new.
  await step.watch.until(() => false, Math.min(RETRY_AFTER_MS, step.plan.timeoutMs));
  step.watch.stopFailing();
  const retry = await send(step, 'retry', event.id, body(event), valid(step));
  const refusal = mustAccept(retry, step.plan.timeoutMs);
  if (refusal) return refusal;
  await settle(step);
  return () => {
    if (step.watch.counts.writes === 0)
      return fail(
        `The handler's write was answered 503 (conformance_fault) and ${told(retry)}, but it never wrote again: it marked the event handled before its work succeeded, so the retry was dropped as a duplicate.`,
      );
    return wroteOnce(step, `After the failed write, ${told(retry)}`);
  };
}

async function unknownType(step: Step): Promise<Outcome> {
  const { succeeded } = step.fixture;
  const id = newId('event');
  const text = body({ ...succeeded, id, type: 'collection.archived' });
  const record = await send(step, 'collection.archived', id, text, valid(step));
  if (record.timed_out) return timedOut(`${told(record)}: answer within ${step.plan.timeoutMs} ms.`);
  if (!accepted(record))
    return fail(
      `${told(record)}: an event of a type the handler does not know is answered 2xx and ignored (anything else has it sent again, then the endpoint disabled).`,
    );
  return () =>
    step.watch.counts.writes > 0
      ? fail(
          `${told(record)}, and the handler wrote the fulfilment for it: collection.archived is not a type it knows; it must be ignored.`,
        )
      : pass;
}

async function unknownFields(step: Step): Promise<Outcome> {
  const event = step.fixture.succeeded;
  const data = event.dataJson.replace(
    /^\{\s*"object"\s*:\s*\{/,
    '{"object": {"future_field": {"added_in": "a later version"}, ',
  );
  const text = `{"future_envelope_field": ["unknown"], ${body({ ...event, dataJson: data }).slice(1)}`;
  const record = await send(step, 'with unknown fields', event.id, text, valid(step));
  const refusal = mustAccept(record, step.plan.timeoutMs);
  if (refusal)
    return refusal.outcome === 'failed'
      ? fail(`${told(record)}: fields the handler does not know are ignored, not refused.`)
      : refusal;
  await settle(step);
  return () => wroteOnce(step, told(record));
}

async function secretRotation(step: Step): Promise<Outcome> {
  const next = `whsec_${step.bytes(24).toString('base64')}`;
  const record = await send(
    step,
    'signed twice',
    step.fixture.succeeded.id,
    body(step.fixture.succeeded),
    valid(step, [next]),
  );
  if (record.timed_out) return timedOut(`${told(record)}: answer within ${step.plan.timeoutMs} ms.`);
  if (!accepted(record))
    return fail(
      `${told(record)}: its webhook-signature held two v1 signatures, the second by the endpoint secret. Accept a delivery when any of them verifies (during a rotation both secrets sign).`,
    );
  await settle(step);
  return () => wroteOnce(step, told(record));
}

export const RUNNERS: Record<ScenarioId, (step: Step) => Promise<Outcome>> = {
  valid_delivery: validDelivery,
  signature_invalid: (step) =>
    forged(step, { kind: 'garbage', bytes: step.bytes(32) }, 'signed by no secret'),
  signature_wrong_secret: (step) =>
    forged(
      step,
      { kind: 'valid', secrets: [`whsec_${step.bytes(24).toString('base64')}`] },
      'signed with a secret that is not the endpoint’s',
    ),
  timestamp_stale: (step) =>
    forged(
      step,
      { kind: 'stale', secrets: [step.plan.secret], ageSeconds: STALE_SECONDS },
      `a replay: its webhook-timestamp was ${STALE_SECONDS / 60} minutes old`,
    ),
  signature_missing: (step) =>
    forged(step, { kind: 'missing' }, 'not signed at all (no webhook-signature header)'),
  duplicate_sequential: duplicateSequential,
  duplicate_concurrent: duplicateConcurrent,
  out_of_order: outOfOrder,
  slow_acknowledgement: slowAcknowledgement,
  retry_after_failure: retryAfterFailure,
  unknown_event_type: unknownType,
  unknown_fields: unknownFields,
  secret_rotation: secretRotation,
};
