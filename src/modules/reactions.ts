import { onCardPaymentCaptured } from './card-payments/card-payments.capture.ts';
import { countRecordedChaos, withWebhookChaos } from './chaos/chaos.webhook-sender.ts';
import { registerAfterAdvance } from './clock/clock.change.ts';
import { followCollectionDebit, succeedCollectionOnCapture } from './collections/collections.pay.ts';
import { endDashboardAccess, sessionMerchantOf } from './dashboard/dashboard.service.ts';
import { registerStoredSecrets } from './idempotency/idempotency.service.ts';
import { virtualCardSecrets } from './issuing/issuing.read.ts';
import { registerSessionCheck } from './merchants/credential-watch.ts';
import { onKeysRolled } from './merchants/credentials.ts';
import { magicNocCode } from './nocs/nocs.rules.ts';
import { scheduleMagicNoc } from './nocs/nocs.service.ts';
import { reconcile } from './reconciliation/reconciliation.service.ts';
import { closeStatementDays } from './statements/statements.service.ts';
import { recordCheckoutIntentOnCapture } from './stripe/stripe.checkout-intent.ts';
import { stripeEventDialect } from './stripe/stripe.webhooks.ts';
import { onAchSettled, onCollectionDebit, registerMagicNocCode } from './transfers/transfers.hooks.ts';
import { deliverWebhooksUntil } from './webhooks/webhooks.delivery.ts';
import { registerEventDialect } from './webhooks/webhooks.dialect.ts';
import { decorateDeliveries, onLabelledAttemptsRecorded } from './webhooks/webhooks.sending.ts';

/**
 * Every reaction of one module to another's change that goes through a hook: "when X happens in
 * module A, module B does Y". Module A exposes the hook and runs what is registered on it without
 * importing module B, which already depends on A (collections pay through card payments and
 * transfers; webhooks read the clock) or serves many modules (idempotency); this file is the only
 * place that connects them. Registered once by the app (app.ts).
 *
 * Not listed here because they are plain calls, where the module that acts imports the other:
 * the closed loop (a card payment of a card this sandbox issued is authorized by issuing, which
 * follows its capture, void, expiry and refund: issuing.closed-loop.ts), every module's ledger
 * postings (ledger/), and events, which every state change writes through the outbox and which
 * webhook deliveries and live subscriptions then read (db/outbox.ts). Work that falls due later
 * is a job row and its handler, named in its module's manifest (`jobs`, src/modules/<module>/index.ts).
 */
export function registerReactions(): void {
  // A card payment made through a collection's checkout is captured (at once, or after its 3-D
  // Secure challenge) → the collection succeeds, as part of the capture's change (written in one
  // transaction with it); a collection that stopped being payable refuses, and nothing is written.
  onCardPaymentCaptured(succeedCollectionOnCapture);
  // A Checkout Session's PaymentIntent is written with the capture that pays it, before its events.
  onCardPaymentCaptured(recordCheckoutIntentOnCapture);

  // The ACH debit of a collection's bank payment settles → the collection succeeds; it is returned
  // → the collection fails with the return code (or is marked returned if it had succeeded).
  onCollectionDebit(followCollectionDebit);

  // A transfer is created to the magic account 200XX → it records the NOC CXX the RDFI will send;
  // it settles on ACH → that NOC is due the next banking day (the nocs module's rules and steps).
  registerMagicNocCode(magicNocCode);
  onAchSettled(scheduleMagicNoc);

  // A merchant's clock advances → the banking days that ended on it have their statements
  // (statement.created), before the deliveries below are attempted.
  registerAfterAdvance(closeStatementDays);
  // … and the expected payments are matched against the movements it booked, or marked overdue.
  registerAfterAdvance(reconcile);

  // A merchant's clock advances → the webhook deliveries and retries due inside the window are
  // attempted, each at its own due time, before the advance answers (after its transaction).
  registerAfterAdvance(deliverWebhooksUntil);

  // A webhook delivery is sent → a merchant's webhook chaos may hold it back, send it twice and label
  // its attempts (chaos wraps the delivery sender); the labelled attempts, once recorded, are
  // counted into /metrics.
  decorateDeliveries(withWebhookChaos);
  onLabelledAttemptsRecorded(countRecordedChaos);

  // A native event is delivered to a Stripe dialect endpoint (format stripe) → the dialect makes
  // its Stripe events of it (written once), and those are delivered instead, Stripe-shaped and
  // signed with Stripe-Signature (webhooks.dialect.ts).
  registerEventDialect(stripeEventDialect);

  // A merchant's keys are rolled → its dashboard sessions end with them (but the browser that
  // asked), in the roll's transaction; a live connection a session opened is checked against the
  // dashboard's sessions when the merchant's credentials change.
  onKeysRolled(endDashboardAccess);
  registerSessionCheck(sessionMerchantOf);

  // An idempotent request's response is a virtual card → its number and CVC are stored as null and
  // a replay reads them back from issuing, so the idempotency table never holds them.
  registerStoredSecrets('virtual_card', virtualCardSecrets);
}
