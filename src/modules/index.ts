import { registerEventFanOut } from '../db/outbox.ts';
import { registerIdPrefixes } from '../kernel/ids.ts';
import achFiles from './ach-files/index.ts';
import bankAccounts from './bank-accounts/index.ts';
import bankMessages from './bank-messages/index.ts';
import cardPayments from './card-payments/index.ts';
import cards from './cards/index.ts';
import chaos from './chaos/index.ts';
import clock from './clock/index.ts';
import collections from './collections/index.ts';
import conformance from './conformance/index.ts';
import counterparties from './counterparties/index.ts';
import dashboard from './dashboard/index.ts';
import disputes from './disputes/index.ts';
import events from './events/index.ts';
import fixtures from './fixtures/index.ts';
import fx from './fx/index.ts';
import idempotency from './idempotency/index.ts';
import inboundTransfers from './inbound-transfers/index.ts';
import issuing from './issuing/index.ts';
import ledger from './ledger/index.ts';
import merchants from './merchants/index.ts';
import type { ModuleManifest } from './module.ts';
import nocs from './nocs/index.ts';
import paymentRequests from './payment-requests/index.ts';
import reconciliation from './reconciliation/index.ts';
import { registerManifests } from './registry.ts';
import requestLog from './request-log/index.ts';
import sandbox from './sandbox/index.ts';
import scheduler from './scheduler/index.ts';
import { registerJobHandler } from './scheduler/scheduler.service.ts';
import statements from './statements/index.ts';
import stripe from './stripe/index.ts';
import transactions from './transactions/index.ts';
import transfers from './transfers/index.ts';
import trigger from './trigger/index.ts';
import webhooks from './webhooks/index.ts';

/**
 * Every module, once: each registry is derived from this list (docs/internals/architecture.md, "Adding a
 * module"). The order is REST's mounting order (a literal path before a parameter that would match
 * it), GraphQL's loading order and retention's purge order. The reactions of one module to another
 * stay a hand-written list (reactions.ts): each is a sentence, not a registry.
 */
export const MODULES: readonly ModuleManifest[] = [
  merchants,
  collections,
  cardPayments,
  disputes,
  transfers,
  inboundTransfers,
  paymentRequests,
  statements,
  achFiles,
  bankMessages,
  reconciliation,
  counterparties,
  nocs,
  issuing,
  fx,
  ledger,
  transactions,
  clock,
  sandbox,
  fixtures,
  chaos,
  trigger,
  events,
  webhooks,
  conformance,
  stripe,
  idempotency,
  requestLog,
  scheduler,
  dashboard,
  cards,
  bankAccounts,
];

/**
 * What the modules register at start-up (the app, and the CLI before it writes): each job kind's
 * handler, the events' fan-out, its id prefixes, and the manifests themselves for the registries derived on first use
 * (event types, trigger recipes, reset kinds: src/modules/registry.ts). Idempotent: registering
 * again replaces the same entries.
 */
export function registerModules(): void {
  registerManifests(MODULES);
  for (const module of MODULES) if (module.ids) registerIdPrefixes(module.ids);
  const fanOuts = MODULES.flatMap((module) => (module.eventFanOut ? [module] : []));
  if (fanOuts.length > 1)
    throw new Error(`events fan out from one module only: ${fanOuts.map((m) => m.name).join(', ')}`);
  for (const module of fanOuts) if (module.eventFanOut) registerEventFanOut(module.eventFanOut);
  const owners = new Map<string, string>();
  for (const module of MODULES)
    for (const [kind, handler] of Object.entries(module.jobs ?? {})) {
      const owner = owners.get(kind);
      if (owner) throw new Error(`job kind ${kind} is handled by both ${owner} and ${module.name}`);
      owners.set(kind, module.name);
      registerJobHandler(kind, handler);
    }
}
