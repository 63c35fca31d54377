import type { DeliveryRecord } from './conformance.deliver.ts';
import type { ScenarioOutcome, ScenarioSpec } from './conformance.scenarios.ts';
import type { CallCounts } from './conformance.watch.ts';

/** One scenario's outcome as a report carries it. */
export interface ScenarioResult {
  id: string;
  group: number;
  title: string;
  expectation: string;
  outcome: ScenarioOutcome;
  /** Why it failed or timed out, naming the deliveries and calls that show it; null when it passed. */
  explanation: string | null;
  /** The collection the scenario's events are about (col_…), null before it was made. */
  object_id: string | null;
  event_ids: string[];
  /** The handler's calls on the collection while the scenario ran. */
  calls: CallCounts;
  deliveries: DeliveryRecord[];
  duration_ms: number;
}

/** A scenario not judged yet (a run just started, or interrupted). */
export function pendingResult(spec: ScenarioSpec): ScenarioResult {
  return {
    id: spec.id,
    group: spec.group,
    title: spec.title,
    expectation: spec.expectation,
    outcome: 'pending',
    explanation: null,
    object_id: null,
    event_ids: [],
    calls: { reads: 0, writes: 0, failed_writes: 0 },
    deliveries: [],
    duration_ms: 0,
  };
}

/** What a scenario found: passed, or failed / timed out with why. */
export type Verdict = { outcome: 'passed' } | { outcome: 'failed' | 'timed_out'; why: string };

export const pass: Verdict = { outcome: 'passed' };
export const fail = (why: string): Verdict => ({ outcome: 'failed', why });
export const timedOut = (why: string): Verdict => ({ outcome: 'timed_out', why });

/** "once" / "twice" / "3 times". */
export function times(count: number): string {
  if (count === 1) return 'once';
  if (count === 2) return 'twice';
  return `${count} times`;
}
