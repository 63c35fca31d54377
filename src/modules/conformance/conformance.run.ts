import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { createFixtures, type Fixture, seededRandom } from './conformance.fixtures.ts';
import type { ScenarioResult, Verdict } from './conformance.judge.ts';
import { SCENARIOS, type ScenarioSpec } from './conformance.scenarios.ts';
import { FINAL_WAIT_MS, type Outcome } from './conformance.step-kit.ts';
import { RUNNERS, type RunPlan, type Step } from './conformance.steps.ts';
import { ObjectWatch } from './conformance.watch.ts';

export type { RunPlan } from './conformance.steps.ts';

/**
 * A conformance run's work: one collection per scenario, then every scenario at once, each against
 * its own collection, each waiting on the handler's calls (never longer than the run's timeout per
 * step). docs/guide/webhook-conformance.md describes the scenarios; conformance.scenarios.ts lists them.
 */

/** A scenario whose deliveries are sent: its step (the watch still counting), and what it found so far. */
interface Sent {
  spec: ScenarioSpec;
  step: Step;
  outcome: Outcome;
  started: number;
}

async function sendScenario(
  ctx: ServiceContext,
  plan: RunPlan,
  spec: ScenarioSpec,
  fixture: Fixture,
  bytes: (count: number) => Buffer,
): Promise<Sent> {
  const started = performance.now();
  const watch = new ObjectWatch(
    ctx.merchant.id,
    [fixture.collectionId, fixture.reference],
    {
      delayMs: spec.id === 'slow_acknowledgement' ? plan.timeoutMs + 1000 : 0,
      failWrites: spec.id === 'retry_after_failure',
    },
    plan.runId,
  );
  const step: Step = { plan, fixture, watch, deliveries: [], bytes, ctx };
  try {
    return { spec, step, outcome: await RUNNERS[spec.id](step), started };
  } catch (error) {
    watch.close();
    throw error;
  }
}

/** A scenario judged: its verdict made now, with the calls counted until now. */
async function judged({ spec, step, outcome, started }: Sent): Promise<ScenarioResult> {
  let verdict: Verdict;
  try {
    verdict = typeof outcome === 'function' ? await outcome() : outcome;
  } finally {
    step.watch.close();
  }
  return {
    id: spec.id,
    group: spec.group,
    title: spec.title,
    expectation: spec.expectation,
    outcome: verdict.outcome,
    explanation: verdict.outcome === 'passed' ? null : verdict.why,
    object_id: step.fixture.collectionId,
    event_ids: [...new Set(step.deliveries.map((d) => d.request.headers['webhook-id'] ?? ''))],
    calls: { ...step.watch.counts },
    deliveries: step.deliveries,
    duration_ms: Math.round(performance.now() - started),
  };
}

/**
 * Creates the run's collections, sends every scenario's deliveries at once, waits for the
 * handler's late work (FINAL_WAIT_MS, at most the timeout), then judges them all; answers their
 * results in the suite's order.
 */
export async function executeRun(
  ctx: ServiceContext,
  plan: RunPlan,
  stillWanted: () => Promise<boolean>,
): Promise<ScenarioResult[]> {
  const random = seededRandom(plan.seed);
  const fixtures = await createFixtures(ctx, plan.runId, random, stillWanted);
  const bytes = (count: number) =>
    Buffer.from(Array.from({ length: count }, () => Math.floor(random() * 256)));
  // Drawn in the suite's order before anything is sent, so the same seed gives the same bytes.
  const draws = new Map(SCENARIOS.map((spec) => [spec.id, Buffer.concat([bytes(32), bytes(24)])]));
  const sent = await Promise.all(
    SCENARIOS.map((spec) => {
      const pool = draws.get(spec.id) ?? randomBytes(56);
      let offset = 0;
      const take = (count: number) => {
        const slice = pool.subarray(offset, offset + count);
        offset += count;
        return slice;
      };
      const fixture = fixtures.get(spec.id);
      if (!fixture) throw new Error(`no collection for scenario ${spec.id}`);
      return sendScenario(ctx, plan, spec, fixture, take);
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, Math.min(FINAL_WAIT_MS, plan.timeoutMs)));
  return Promise.all(sent.map(judged));
}
