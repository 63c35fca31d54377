/**
 * Webhook chaos as a decorator of the delivery sender (docs/guide/chaos.md), registered at start-up
 * (modules/reactions.ts): for a merchant with webhook chaos on, it draws each first attempt's plan
 * (held back for a delay or a reorder, sent twice), carries out a released hold's plan, and counts
 * the faults of the recorded attempts into /metrics. The delivery code only calls the sender.
 */
import type { Db } from '../../db/client.ts';
import { systemClock } from '../../kernel/clock.ts';
import type { Claimed } from '../webhooks/webhooks.lease.ts';
import {
  type DeliveryPlan,
  type DeliverySender,
  faultOfLabel,
  isSuccess,
  type LabelledAttempt,
  PLAIN_PLAN,
} from '../webhooks/webhooks.sending.ts';
import { seededDraws } from './chaos.grammar.ts';
import { countWebhookChaos, merchantWebhookChaos, nextInSequence } from './chaos.service.ts';
import { planWebhookChaos, readStoredPlan, storedPlan } from './chaos.webhook-grammar.ts';

/**
 * Webhook chaos for a claimed delivery: a released hold carries out the plan drawn before it; a
 * first attempt draws a plan from the merchant's webhook chaos (in claim order, so a seed replays);
 * a retry, a delivery that cannot be sent, or a merchant without webhook chaos gets none (null).
 */
async function chaosFor(db: Db, claimed: Claimed): Promise<DeliveryPlan | null> {
  if (claimed.chaos !== null) {
    const plan = readStoredPlan(claimed.chaos);
    const label =
      plan.hold === 'delay'
        ? `delayed ${plan.ms}ms`
        : claimed.passed
          ? 'reordered'
          : `held back ${plan.ms}ms (no later event passed it)`;
    return { label, duplicate: plan.duplicate };
  }
  if (claimed.attempts > 0 || !claimed.endpoint?.enabled || !claimed.event) return null;
  const spec = await merchantWebhookChaos(db, claimed.merchantId);
  if (!spec) return null;
  const draw =
    spec.seed === undefined
      ? Math.random
      : seededDraws(spec.seed, nextInSequence(claimed.merchantId, spec.seed, 'webhook'));
  const plan = planWebhookChaos(spec, draw);
  if (plan.hold)
    return {
      hold: { note: storedPlan(plan), until: new Date(systemClock.now().getTime() + plan.hold.ms) },
      label: null,
      duplicate: plan.duplicate,
    };
  return { label: null, duplicate: plan.duplicate };
}

/** The sender `inner` with webhook chaos: holds and labels drawn here, each sending made by `inner`. */
export function withWebhookChaos(inner: DeliverySender): DeliverySender {
  return {
    async plan(db, claimed) {
      const plain = await inner.plan(db, claimed);
      // The merchants' webhook chaos settings load together (cached); the draws then go in claim order.
      await Promise.all(
        [...new Set(claimed.map((c) => c.merchantId))].map((id) => merchantWebhookChaos(db, id)),
      );
      const plans: DeliveryPlan[] = [];
      for (const [i, c] of claimed.entries()) plans.push((await chaosFor(db, c)) ?? plain[i] ?? PLAIN_PLAN);
      return plans;
    },
    async send(message, plan) {
      const { outcome } = await inner.send(message, { ...plan, duplicate: false });
      if (!plan.duplicate || !isSuccess(outcome)) return { outcome, duplicate: null };
      // The same message again (same webhook-id and body, as an at-least-once sender repeats it).
      const again = await inner.send(message, { label: 'duplicate', duplicate: false });
      return { outcome, duplicate: again.outcome };
    },
  };
}

/** Counts the faults of recorded attempts into /metrics (chaos.service.ts, countWebhookChaosInto). */
export function countRecordedChaos(attempts: readonly LabelledAttempt[]): void {
  for (const attempt of attempts) countWebhookChaos(faultOfLabel(attempt.label), attempt.status);
}
