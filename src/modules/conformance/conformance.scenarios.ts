/**
 * The suite a conformance run drives against a webhook handler, in its order. Every scenario has
 * an object of its own (a collection the run creates and pays), so what the handler does with it is
 * that scenario's alone. docs/guide/webhook-conformance.md explains each one and what a correct
 * handler does; `expectation` is its one-line form, carried in every report.
 */

export const SCENARIO_IDS = [
  'valid_delivery',
  'signature_invalid',
  'signature_wrong_secret',
  'timestamp_stale',
  'signature_missing',
  'duplicate_sequential',
  'duplicate_concurrent',
  'out_of_order',
  'slow_acknowledgement',
  'retry_after_failure',
  'unknown_event_type',
  'unknown_fields',
  'secret_rotation',
] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

export interface ScenarioSpec {
  id: ScenarioId;
  /** The group of the suite it belongs to (1 to 7, as the guide numbers them). */
  group: number;
  title: string;
  expectation: string;
}

const spec = (id: ScenarioId, group: number, title: string, expectation: string): ScenarioSpec => ({
  id,
  group,
  title,
  expectation,
});

export const SCENARIOS: readonly ScenarioSpec[] = [
  spec(
    'valid_delivery',
    1,
    'A valid delivery',
    'collection.succeeded, signed with the endpoint secret: answer 2xx within the timeout and write the fulfilment once.',
  ),
  spec(
    'signature_invalid',
    2,
    'A signature that does not verify',
    'webhook-signature holds bytes no secret made: refuse it with a 4xx and do nothing.',
  ),
  spec(
    'signature_wrong_secret',
    2,
    'A signature by another secret',
    'Signed with a secret that is not the endpoint’s: refuse it with a 4xx and do nothing.',
  ),
  spec(
    'timestamp_stale',
    2,
    'A replayed delivery (stale timestamp)',
    'Correctly signed, webhook-timestamp 10 minutes old: refuse it with a 4xx (tolerance 5 minutes) and do nothing.',
  ),
  spec(
    'signature_missing',
    2,
    'No signature header',
    'No webhook-signature header: refuse it with a 4xx and do nothing.',
  ),
  spec(
    'duplicate_sequential',
    3,
    'The same event twice',
    'One event delivered twice (same webhook-id), one after the other: answer 2xx to both, write once.',
  ),
  spec(
    'duplicate_concurrent',
    3,
    'The same event three times at once',
    'One event delivered three times concurrently: answer 2xx to all, write once.',
  ),
  spec(
    'out_of_order',
    4,
    'Events of one object out of order',
    'collection.succeeded arrives before collection.created: the fulfilment written last must say succeeded, the collection’s real state.',
  ),
  spec(
    'slow_acknowledgement',
    5,
    'A slow dependency',
    'Sandbank answers the handler’s calls on this collection after the timeout: answer the delivery 2xx within the timeout anyway (acknowledge first, then work).',
  ),
  spec(
    'retry_after_failure',
    5,
    'A retry after the work failed',
    'The first write on the collection fails (503); the event is delivered again: the retry must do the work, so it is written exactly once.',
  ),
  spec(
    'unknown_event_type',
    6,
    'An event type the handler does not know',
    'collection.archived (not a type Sandbank sends): answer 2xx and do nothing.',
  ),
  spec(
    'unknown_fields',
    6,
    'Fields the handler does not know',
    'collection.succeeded with extra fields in the envelope and the object: answer 2xx and write the fulfilment once.',
  ),
  spec(
    'secret_rotation',
    7,
    'Secret rotation overlap',
    'Signed by a new secret and by the endpoint secret (two v1 signatures, the new one first): accept it (2xx) and write once.',
  ),
];

export type ScenarioOutcome = 'passed' | 'failed' | 'timed_out' | 'pending';

/** What the handler under test is expected to do, as every run states it (the guide says it at length). */
export const HANDLER_CONTRACT = [
  'Verify every delivery (Standard Webhooks): a v1 signature over "webhook-id.webhook-timestamp.body" with the endpoint secret, any of the signatures in the header may match; refuse a timestamp more than 5 minutes away; refuse with a 4xx.',
  'Deduplicate by webhook-id: a delivery of an event already handled is answered 2xx and does nothing. Mark an event handled only once its work succeeded.',
  'Answer within the timeout: acknowledge first, then do the work.',
  'Work for collection.created and collection.succeeded: read the collection (GET /v1/collections/{id}) and write what you now know: POST /v1/collections/{id} with {"metadata": {"fulfilment": <the state you read>}}. Answer any other type 2xx and ignore it; ignore fields you do not know.',
] as const;
