import { SandbankError } from '../../kernel/errors.ts';
import { formatDecimal, parseAmount } from '../../kernel/money.ts';
import { parseInput } from '../../kernel/validation.ts';
import {
  createCardPaymentFieldCodes,
  createCardPaymentSchema,
} from '../card-payments/card-payments.schema.ts';
import { magicBehavior, TEST_CARDS, testCardExpiry } from '../cards/magic-cards.ts';
import { createCollectionFieldCodes, createCollectionSchema } from '../collections/collections.schema.ts';
import { FAILURE_REASONS } from '../fx/fx.destinations.ts';
import {
  conversionFieldCodes,
  createConversionSchema,
  createQuoteSchema,
  quoteFieldCodes,
} from '../fx/fx.schema.ts';
import { validateMcc } from '../issuing/issuing.controls.ts';
import { AUTHORIZATION_MAX_MINOR } from '../issuing/issuing.rows.ts';
import {
  createVirtualCardSchema,
  simulateAuthorizationSchema,
  updateVirtualCardSchema,
  virtualCardFieldCodes,
} from '../issuing/issuing.schema.ts';
import { topUpFieldCodes, topUpSchema } from '../ledger/ledger.schema.ts';
import { achReturnReason, RAIL_LIMIT_MINOR, type Rail } from '../transfers/transfers.rails.ts';
import { returnRefusal, returnRule } from '../transfers/transfers.returns.ts';
import {
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
} from '../transfers/transfers.schema.ts';
import type { Driver } from './trigger.driver.ts';
import { DISPUTE_RECIPES } from './trigger.recipes.disputes.ts';
import { inboundRecipes } from './trigger.recipes.inbound.ts';
import { nocRecipes } from './trigger.recipes.noc.ts';
import { returnDisputeRecipes } from './trigger.recipes.returns.ts';

/**
 * One recipe per event type: which override keys it accepts, and how it drives real objects
 * through their own operations until the event is emitted. `prepare` checks the overrides with
 * the real operations' schemas before anything is written, and answers the run.
 */
export interface Recipe {
  type: string;
  /** What the recipe drives, in words (docs/trigger.md and GET /v1/simulate/events/recipes). */
  drives: string;
  /** The override keys it accepts; `metadata.*` stands for any `metadata.<key>`. */
  accepts: readonly string[];
  /** Whether it moves the merchant's clock. */
  movesClock: boolean;
  /**
   * The run answers the id of its primary object, the one the event is about (for webhook.test, the
   * id of the event it sent): the triggered event is chosen by it, never by time alone.
   */
  prepare(set: Overrides): (d: Driver) => Promise<string>;
}

export type Overrides = Readonly<Record<string, string>>;

/** Where the recipes send bank entries: a routing number every rail reaches, an account that succeeds. */
const ROUTING = '110000000';
const GOOD_ACCOUNT = '000123456789';
/** RTP rejects entries to this routing number (AC03). */
const UNREACHABLE_ROUTING = '790000051';
const VISA = '4242424242424242';
const THREE_DS_CARD = '4000002500003155';
const REFUND_PENDING_CARD = '4000000000007726';
const REFUND_FAILS_CARD = '4000000000005126';
const DAY = 86_400;

/** The magic card that declines with each decline code. */
const DECLINE_CARDS = new Map(
  TEST_CARDS.flatMap((card) => {
    const behavior = magicBehavior(card);
    return behavior.kind === 'decline' ? [[behavior.code as string, card.number] as const] : [];
  }),
);

const LABELS = ['reference', 'description', 'metadata.*'] as const;

/** The overrides named `metadata.<key>` as a metadata object (absent when none). */
function metadataOf(set: Overrides): Record<string, string> | undefined {
  const entries = Object.entries(set).filter(([key]) => key.startsWith('metadata.'));
  return entries.length
    ? Object.fromEntries(entries.map(([key, value]) => [key.slice(9), value]))
    : undefined;
}

/** reference, description and metadata from the overrides, only those set. */
function labels(set: Overrides): Record<string, unknown> {
  return {
    ...(set.reference !== undefined ? { reference: set.reference } : {}),
    ...(set.description !== undefined ? { description: set.description } : {}),
    ...(metadataOf(set) ? { metadata: metadataOf(set) } : {}),
  };
}

/** An error of an underlying operation, its param named as the override that caused it. */
function asOverride<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof SandbankError && error.param && !error.param.startsWith('set.')) {
      throw new SandbankError(error.code, { param: `set.${error.param}`, message: error.message });
    }
    throw error;
  }
}

/** Parses `input` with an operation's own schema and checks its amount as the operation does. */
function checked<T>(schema: Parameters<typeof parseInput>[0], input: unknown, codes = {}): T {
  return asOverride(() => {
    const parsed = parseInput(schema, input, codes) as T & {
      amount?: unknown;
      currency?: string;
      rail?: string;
      method?: string;
    };
    if (parsed.amount === undefined) return parsed as T;
    const minor = parseAmount(parsed.amount, (parsed.currency ?? 'USD') as 'USD');
    // A bank entry over its rail's limit is refused here, before a top-up funds it.
    const rail = parsed.rail ?? parsed.method;
    if (rail && Object.hasOwn(RAIL_LIMIT_MINOR, rail) && minor > RAIL_LIMIT_MINOR[rail as Rail])
      throw new SandbankError('amount_exceeds_rail_limit', {
        param: 'amount',
        message: `The amount is over the ${rail} limit of ${formatDecimal(RAIL_LIMIT_MINOR[rail as Rail], 'USD')} USD per entry.`,
      });
    return parsed as T;
  });
}

/** The override return_code (or the fallback), checked against the return rules for the entry's direction. */
function returnCode(set: Overrides, fallback: string, direction: 'credit' | 'debit' = 'debit'): string {
  const code = set.return_code ?? fallback;
  if (!achReturnReason(code))
    throw new SandbankError('parameter_invalid', {
      param: 'set.return_code',
      message: `${code.slice(0, 8)} is not a Nacha return code (R01 … R85).`,
    });
  const rule = returnRule(code);
  const refusal = rule ? returnRefusal(rule, direction) : null;
  if (refusal) throw new SandbankError('parameter_invalid', { param: 'set.return_code', message: refusal });
  return code;
}

function recipe(
  type: string,
  drives: string,
  accepts: readonly string[],
  prepare: Recipe['prepare'],
  movesClock = false,
): Recipe {
  return { type, drives, accepts, movesClock, prepare };
}

// ---------------------------------------------------------------------------------------------
// Collections

const COLLECTION_KEYS = ['amount', 'currency', 'email', ...LABELS] as const;

function collectionInput(set: Overrides, extra: Record<string, unknown> = {}) {
  return checked<Parameters<Driver['createCollection']>[0]>(
    createCollectionSchema,
    {
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      ...(set.email !== undefined ? { email: set.email } : {}),
      ...labels(set),
      ...extra,
    },
    createCollectionFieldCodes,
  );
}

type CreatedCollection = Awaited<ReturnType<Driver['createCollection']>>;

/**
 * Creates a collection from the overrides (with `extra`), then `then` drives it; with `returns`,
 * the override return_code (default R01) is checked before anything is written and handed to it.
 */
function collectionRecipe(
  type: string,
  drives: string,
  then: (d: Driver, collection: CreatedCollection, code: string) => Promise<unknown>,
  options: { extra?: Record<string, unknown>; returns?: boolean; movesClock?: boolean } = {},
): Recipe {
  return recipe(
    type,
    drives,
    [...COLLECTION_KEYS, ...(options.returns ? ['return_code'] : [])],
    (set) => {
      const input = collectionInput(set, options.extra);
      const code = options.returns ? returnCode(set, 'R01') : 'R01';
      return async (d) => {
        const collection = await d.createCollection(input);
        await then(d, collection, code);
        return collection.id;
      };
    },
    options.movesClock ?? false,
  );
}

const collections: Recipe[] = [
  collectionRecipe('collection.created', 'Creates a collection (a checkout).', async () => {}),
  collectionRecipe(
    'collection.processing',
    'Creates a collection and pays it by bank account (an ACH debit of the payer).',
    async (d, collection) => {
      await d.payCollectionByBank(collection.reference, GOOD_ACCOUNT);
      await d.submitCollectionDebit(collection.id);
    },
  ),
  collectionRecipe(
    'collection.succeeded',
    'Creates a collection and pays it by card (Visa 4242…).',
    (d, collection) => d.payCollectionByCard(collection.reference, VISA),
  ),
  collectionRecipe(
    'collection.failed',
    'Creates a collection, pays it by bank account, submits the ACH debit and returns it before settlement (return_code, default R01).',
    async (d, collection, code) => {
      await d.payCollectionByBank(collection.reference, GOOD_ACCOUNT);
      const debit = await d.submitCollectionDebit(collection.id);
      await d.returnTransfer(debit, code);
    },
    { returns: true },
  ),
  collectionRecipe(
    'collection.expired',
    "Creates a collection that expires in 30 minutes and advances the merchant's clock past it.",
    (d) => d.advance(1801),
    { extra: { expires_in: 1800 }, movesClock: true },
  ),
  collectionRecipe('collection.canceled', 'Creates a collection and cancels it.', (d, collection) =>
    d.cancelCollection(collection.reference),
  ),
];

// ---------------------------------------------------------------------------------------------
// Card payments and refunds

const PAYMENT_KEYS = ['amount', 'currency', ...LABELS] as const;

function paymentInput(set: Overrides, number: string, capture: boolean, now: Date) {
  return checked<Parameters<Driver['createCardPayment']>[0]>(
    createCardPaymentSchema,
    {
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      card: { number, exp_month: testCardExpiry(now).month, exp_year: testCardExpiry(now).year, cvc: '123' },
      capture,
      ...labels(set),
    },
    createCardPaymentFieldCodes,
  );
}

/** A recipe whose payment is made with `number`, then driven by `then` (given the payment's id). */
function paymentRecipe(
  type: string,
  drives: string,
  options: {
    number?: string;
    capture: boolean;
    accepts?: readonly string[];
    movesClock?: boolean;
    /** The amount must be above this many cents (a partial refund takes some of it). */
    above?: bigint;
  },
  then: (d: Driver, paymentId: string, set: Overrides) => Promise<string | undefined> = async () => undefined,
): Recipe {
  return recipe(
    type,
    drives,
    options.accepts ?? PAYMENT_KEYS,
    (set) => {
      const input = paymentInput(set, options.number ?? VISA, options.capture, new Date());
      if (options.above !== undefined && parseAmount(input.amount, 'USD') <= options.above)
        throw new SandbankError('amount_invalid', {
          param: 'set.amount',
          message: `${type} refunds ${formatCents(options.above)} of the payment: the amount must be above ${formatCents(options.above)}.`,
        });
      if (
        set.refund_reason !== undefined &&
        !['duplicate', 'fraudulent', 'requested_by_customer'].includes(set.refund_reason)
      )
        throw new SandbankError('parameter_invalid', {
          param: 'set.refund_reason',
          message: 'A refund reason is duplicate, fraudulent or requested_by_customer.',
        });
      return async (d) => {
        const payment = await d.createCardPayment({
          ...input,
          card: { ...input.card!, exp_year: testCardExpiry(d.now()).year },
        });
        return (await then(d, payment, set)) ?? payment;
      };
    },
    options.movesClock ?? false,
  );
}

const REFUND_KEYS = [...PAYMENT_KEYS, 'refund_reason'] as const;
/** What card_payment.partially_refunded refunds, in cents. */
const PARTIAL_REFUND_CENTS = 100n;
const formatCents = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
const refundReason = (set: Overrides) =>
  set.refund_reason as 'duplicate' | 'fraudulent' | 'requested_by_customer' | undefined;

const cardPayments: Recipe[] = [
  paymentRecipe(
    'card_payment.requires_action',
    'Makes a card payment with the 3-D Secure card 4000 0025 0000 3155 (a challenge is left open).',
    { number: THREE_DS_CARD, capture: true },
  ),
  paymentRecipe('card_payment.authorized', 'Authorizes a card payment (capture: false).', { capture: false }),
  paymentRecipe('card_payment.captured', 'Makes a card payment, captured at once.', { capture: true }),
  paymentRecipe(
    'card_payment.partially_refunded',
    'Makes a card payment and refunds 1.00 of it (amount must be above 1.00).',
    { capture: true, accepts: REFUND_KEYS, above: PARTIAL_REFUND_CENTS },
    async (d, id, set) => {
      await d.refund(id, { amount: formatCents(PARTIAL_REFUND_CENTS), reason: refundReason(set) });
      return undefined;
    },
  ),
  paymentRecipe(
    'card_payment.refunded',
    'Makes a card payment and refunds all of it.',
    { capture: true, accepts: REFUND_KEYS },
    async (d, id, set) => {
      await d.refund(id, { reason: refundReason(set) });
      return undefined;
    },
  ),
  recipe(
    'card_payment.declined',
    'Makes a card payment with a magic card that declines (decline_code, default generic_decline).',
    [...PAYMENT_KEYS, 'decline_code'],
    (set) => {
      const code = set.decline_code ?? 'generic_decline';
      const number = DECLINE_CARDS.get(code);
      if (!number)
        throw new SandbankError('parameter_invalid', {
          param: 'set.decline_code',
          message: `A decline code is one of ${[...DECLINE_CARDS.keys()].join(', ')}.`,
        });
      const input = paymentInput(set, number, true, new Date());
      return async (d) => d.createDeclinedCardPayment(input);
    },
  ),
  paymentRecipe(
    'card_payment.voided',
    'Authorizes a card payment and voids it.',
    { capture: false },
    async (d, id) => {
      await d.voidCardPayment(id);
      return undefined;
    },
  ),
  paymentRecipe(
    'card_payment.expired',
    "Authorizes a card payment and advances the merchant's clock 7 days, past the authorization's expiry.",
    { capture: false, movesClock: true },
    async (d) => {
      await d.advance(7 * DAY + 1);
      return undefined;
    },
  ),
];

const refunds: Recipe[] = [
  paymentRecipe(
    'refund.pending',
    'Makes a card payment with 4000 0000 0000 7726 (its refunds stay pending a banking day) and refunds it.',
    { number: REFUND_PENDING_CARD, capture: true, accepts: REFUND_KEYS },
    (d, id, set) => d.refund(id, { reason: refundReason(set) }),
  ),
  paymentRecipe(
    'refund.succeeded',
    'Makes a card payment and refunds it.',
    { capture: true, accepts: REFUND_KEYS },
    (d, id, set) => d.refund(id, { reason: refundReason(set) }),
  ),
  paymentRecipe(
    'refund.failed',
    'Makes a card payment with 4000 0000 0000 5126 (its refunds fail) and refunds it.',
    { number: REFUND_FAILS_CARD, capture: true, accepts: REFUND_KEYS },
    (d, id, set) => d.refund(id, { reason: refundReason(set) }),
  ),
];

// ---------------------------------------------------------------------------------------------
// Transfers and payouts

const ENTRY_KEYS = ['amount', 'currency', ...LABELS] as const;
const ACH_TRANSFER_KEYS = [...ENTRY_KEYS, 'rail', 'direction'] as const;

function transferInput(set: Overrides, rail: string, routing = ROUTING, direction = 'debit') {
  return checked<Parameters<Driver['createTransfer']>[0]>(
    createTransferSchema,
    {
      rail,
      direction,
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      counterparty: { name: 'Trigger counterparty', routing_number: routing, account_number: GOOD_ACCOUNT },
      ...labels(set),
    },
    createTransferFieldCodes,
  );
}

function achRail(set: Overrides): string {
  const rail = set.rail ?? 'ach';
  if (rail !== 'ach' && rail !== 'same_day_ach')
    throw new SandbankError('parameter_invalid', {
      param: 'set.rail',
      message:
        'This event happens on ACH: rail is ach or same_day_ach (RTP and FedNow transfers are completed or rejected).',
    });
  return rail;
}

/** An ACH transfer (a debit by default: it needs no funds; a credit is funded first), then `steps`. */
function achTransfer(
  type: string,
  drives: string,
  steps: readonly ('submit' | 'settle' | 'return' | 'cancel')[],
  extraKeys: readonly string[] = [],
): Recipe {
  return recipe(type, drives, [...ACH_TRANSFER_KEYS, ...extraKeys], (set) => {
    const input = transferInput(set, achRail(set), ROUTING, set.direction ?? 'debit');
    const code = steps.includes('return')
      ? returnCode(
          set,
          input.direction === 'debit' ? 'R01' : 'R03',
          input.direction === 'credit' ? 'credit' : 'debit',
        )
      : null;
    return async (d) => {
      if (input.direction === 'credit') await d.topUp(input.amount, input.currency);
      const id = await d.createTransfer(input);
      for (const step of steps) {
        if (step === 'return') await d.returnTransfer(id, code ?? 'R01');
        else await d.stepTransfer(step, id);
      }
      return id;
    };
  });
}

function rtpTransfer(type: string, drives: string, routing: string): Recipe {
  return recipe(
    type,
    drives,
    ENTRY_KEYS,
    (set) => {
      const input = transferInput(set, 'rtp', routing, 'credit');
      return async (d) => {
        await d.topUp(input.amount, input.currency);
        const id = await d.createTransfer(input);
        await d.advance(5);
        return id;
      };
    },
    true,
  );
}

const transfers: Recipe[] = [
  achTransfer('transfer.created', 'Creates an ACH transfer (a debit by default).', []),
  achTransfer('transfer.submitted', 'Creates an ACH transfer and submits it (simulate submit).', ['submit']),
  achTransfer('transfer.settled', 'Creates an ACH transfer, submits and settles it.', ['submit', 'settle']),
  achTransfer(
    'transfer.returned',
    'Creates an ACH transfer, submits and settles it, then the bank returns it (return_code, default R01 for a debit, R03 for a credit).',
    ['submit', 'settle', 'return'],
    ['return_code'],
  ),
  achTransfer('transfer.canceled', 'Creates an ACH transfer and cancels it before submission.', ['cancel']),
  rtpTransfer(
    'transfer.completed',
    "Tops up the balance, sends an RTP credit and advances the merchant's clock 5 seconds (RTP completes in 2).",
    ROUTING,
  ),
  rtpTransfer(
    'transfer.rejected',
    "Tops up the balance, sends an RTP credit to the unreachable routing number 790000051 and advances the merchant's clock 5 seconds.",
    UNREACHABLE_ROUTING,
  ),
];

const PAYOUT_KEYS = [...ENTRY_KEYS, 'rail'] as const;

function payoutRecipe(
  type: string,
  drives: string,
  steps: readonly ('submit' | 'settle' | 'return' | 'cancel')[],
  options: { returns?: boolean } = {},
): Recipe {
  return recipe(type, drives, [...PAYOUT_KEYS, ...(options.returns ? ['return_code'] : [])], (set) => {
    const rail = achRail(set);
    const input = checked<Parameters<Driver['createPayout']>[0]>(
      createPayoutSchema,
      {
        amount: set.amount ?? '25.00',
        currency: set.currency ?? 'USD',
        method: rail,
        destination: {
          name: 'Trigger payout account',
          routing_number: ROUTING,
          account_number: GOOD_ACCOUNT,
        },
        ...labels(set),
      },
      createPayoutFieldCodes,
    );
    const code = options.returns ? returnCode(set, 'R03', 'credit') : null;
    return async (d) => {
      await d.topUp(input.amount, input.currency);
      const id = await d.createPayout(input);
      for (const step of steps) {
        if (step === 'return') await d.returnPayout(id, code ?? 'R03');
        else await d.stepPayout(step, id);
      }
      return id;
    };
  });
}

const payouts: Recipe[] = [
  payoutRecipe('payout.created', 'Tops up the balance and creates an ACH payout.', []),
  payoutRecipe('payout.in_transit', 'Tops up the balance, creates an ACH payout and submits it.', ['submit']),
  payoutRecipe('payout.paid', 'Tops up the balance, creates an ACH payout, submits and settles it.', [
    'submit',
    'settle',
  ]),
  payoutRecipe(
    'payout.failed',
    'Tops up the balance, creates an ACH payout, submits it and the bank returns it in transit (return_code, default R03).',
    ['submit', 'return'],
    { returns: true },
  ),
  payoutRecipe(
    'payout.returned',
    'Tops up the balance, creates an ACH payout, submits and settles it, then the bank returns it (return_code, default R03).',
    ['submit', 'settle', 'return'],
    { returns: true },
  ),
  payoutRecipe('payout.canceled', 'Tops up the balance, creates an ACH payout and cancels it.', ['cancel']),
];

// ---------------------------------------------------------------------------------------------
// Balance transactions

function topUpInput(set: Overrides) {
  return checked<{ amount: string; currency: string; description?: string }>(
    topUpSchema,
    {
      amount: set.amount ?? '25.00',
      currency: set.currency ?? 'USD',
      ...(set.description !== undefined ? { description: set.description } : {}),
    },
    topUpFieldCodes,
  );
}

/** Tops up the balance, then an ACH credit transfer holds on available and takes `steps`. */
function heldCredit(
  type: string,
  drives: string,
  steps: readonly ('submit' | 'settle' | 'cancel')[],
): Recipe {
  return recipe(type, drives, ['amount', ...LABELS], (set) => {
    const input = transferInput(set, 'ach', ROUTING, 'credit');
    return async (d) => {
      await d.topUp(input.amount, input.currency);
      const id = await d.createTransfer(input);
      const hold = await d.transferHold(id);
      for (const step of steps) await d.stepTransfer(step, id);
      return hold;
    };
  });
}

const balanceTransactions: Recipe[] = [
  recipe(
    'balance_transaction.created',
    'Tops up the balance (a posted balance transaction of type top_up).',
    ['amount', 'currency', 'description'],
    (set) => {
      const input = topUpInput(set);
      return (d) => d.topUpPosting(input);
    },
  ),
  heldCredit(
    'balance_transaction.posted',
    'Tops up the balance, creates an ACH credit transfer (a hold on available), submits and settles it: the hold is posted.',
    ['submit', 'settle'],
  ),
  heldCredit(
    'balance_transaction.voided',
    'Tops up the balance, creates an ACH credit transfer (a hold on available) and cancels it: the hold is voided.',
    ['cancel'],
  ),
  recipe(
    'balance_transaction.reversed',
    "Tops up the balance, then reverses the top-up's balance transaction with the ledger's reversal (a new posting of the negated entries), as a bounced top-up would be. No API operation reverses a posting yet: this recipe is the only way to see the event.",
    ['amount', 'currency', 'description'],
    (set) => {
      const input = topUpInput(set);
      return async (d) => {
        const posting = await d.topUpPosting(input);
        await d.reversePosting(posting);
        return posting;
      };
    },
  ),
];

// ---------------------------------------------------------------------------------------------
// Issuing

const CARD_KEYS = ['brand', 'cardholder_name', 'metadata.*'] as const;

function cardInput(set: Overrides, extra: Record<string, unknown> = {}) {
  return checked<Parameters<Driver['createVirtualCard']>[0]>(
    createVirtualCardSchema,
    {
      brand: set.brand ?? 'visa',
      cardholder_name: set.cardholder_name ?? 'Trigger Cardholder',
      ...(metadataOf(set) ? { metadata: metadataOf(set) } : {}),
      ...extra,
    },
    virtualCardFieldCodes,
  );
}

function cardRecipe(
  type: string,
  drives: string,
  states: readonly ('frozen' | 'active' | 'canceled')[],
): Recipe {
  return recipe(type, drives, CARD_KEYS, (set) => {
    const input = cardInput(set);
    return async (d) => {
      const id = await d.createVirtualCard(input);
      for (const state of states) await d.updateVirtualCard(id, { state });
      return id;
    };
  });
}

const virtualCards: Recipe[] = [
  cardRecipe('virtual_card.created', 'Issues a virtual card.', []),
  cardRecipe('virtual_card.active', 'Issues a virtual card, freezes it and unfreezes it.', [
    'frozen',
    'active',
  ]),
  cardRecipe('virtual_card.frozen', 'Issues a virtual card and freezes it.', ['frozen']),
  cardRecipe('virtual_card.canceled', 'Issues a virtual card and cancels it.', ['canceled']),
  recipe(
    'virtual_card.updated',
    'Issues a virtual card and updates its metadata (metadata.*, default trigger=updated).',
    CARD_KEYS,
    (set) => {
      const input = cardInput({
        ...(set.brand !== undefined ? { brand: set.brand } : {}),
        ...(set.cardholder_name !== undefined ? { cardholder_name: set.cardholder_name } : {}),
      });
      const update = checked<Parameters<Driver['updateVirtualCard']>[1]>(updateVirtualCardSchema, {
        metadata: metadataOf(set) ?? { trigger: 'updated' },
      });
      return async (d) => {
        const id = await d.createVirtualCard({ ...input, metadata: {} });
        await d.updateVirtualCard(id, update);
        return id;
      };
    },
  ),
];

const AUTHORIZATION_KEYS = ['amount', 'merchant_name', 'mcc'] as const;

function authorizationRecipe(
  type: string,
  drives: string,
  then: (d: Driver, id: string) => Promise<void>,
  options: { declined?: boolean; movesClock?: boolean } = {},
): Recipe {
  return recipe(
    type,
    drives,
    AUTHORIZATION_KEYS,
    (set) => {
      const input = checked<Parameters<Driver['authorize']>[1]>(simulateAuthorizationSchema, {
        amount: set.amount ?? '25.00',
        merchant: { name: set.merchant_name ?? 'Trigger Store', mcc: set.mcc ?? '5734' },
      });
      // The operation's own bounds, checked before the card is issued and the balance topped up.
      asOverride(() => parseAmount(input.amount, 'USD', { max: AUTHORIZATION_MAX_MINOR }));
      const mcc = asOverride(() => validateMcc(input.merchant.mcc, 'mcc'));
      return async (d) => {
        const card = await d.createVirtualCard(
          cardInput({}, options.declined ? { spending_controls: { blocked_mccs: [mcc] } } : {}),
        );
        if (!options.declined) await d.topUp(String(input.amount), 'USD');
        const id = await d.authorize(card, input);
        await then(d, id);
        return id;
      };
    },
    options.movesClock ?? false,
  );
}

const authorizations: Recipe[] = [
  authorizationRecipe(
    'issuing_authorization.approved',
    'Tops up the balance, issues a virtual card and simulates a purchase on it.',
    async () => {},
  ),
  authorizationRecipe(
    'issuing_authorization.declined',
    "Issues a virtual card that blocks the purchase's MCC and simulates a purchase on it.",
    async () => {},
    { declined: true },
  ),
  authorizationRecipe('issuing_authorization.captured', 'An approved purchase, captured.', (d, id) =>
    d.authorizationStep('capture', id),
  ),
  authorizationRecipe('issuing_authorization.reversed', 'An approved purchase, reversed in full.', (d, id) =>
    d.authorizationStep('reverse', id),
  ),
  authorizationRecipe(
    'issuing_authorization.expired',
    "An approved purchase; the merchant's clock is advanced 7 days, past its expiry.",
    (d) => d.advance(7 * DAY + 1),
    { movesClock: true },
  ),
  authorizationRecipe(
    'issuing_authorization.refunded',
    'An approved purchase, captured, then refunded.',
    async (d, id) => {
      await d.authorizationStep('capture', id);
      await d.authorizationStep('refund', id);
    },
  ),
];

// ---------------------------------------------------------------------------------------------
// FX

const QUOTE_KEYS = ['target_currency', 'source_amount'] as const;

function quoteInput(set: Overrides) {
  const input = checked<Parameters<Driver['createQuote']>[0]>(
    createQuoteSchema,
    { target_currency: set.target_currency ?? 'EUR', source_amount: set.source_amount ?? '25.00' },
    quoteFieldCodes,
  );
  asOverride(() => parseAmount(input.source_amount, 'USD', { param: 'source_amount' }));
  return input;
}

/** reference, description and metadata of a conversion or settlement, checked as a conversion checks them. */
function conversionLabels(set: Overrides): Record<string, unknown> {
  const { quote_id: _quote, ...rest } = checked<Record<string, unknown>>(
    createConversionSchema,
    { quote_id: 'fxq_trigger', ...labels(set) },
    conversionFieldCodes,
  );
  return rest;
}

const fx: Recipe[] = [
  recipe('fx_quote.created', 'Asks for an FX quote (USD to EUR by default).', QUOTE_KEYS, (set) => {
    const input = quoteInput(set);
    return (d) => d.createQuote(input);
  }),
  recipe(
    'fx_quote.used',
    'Tops up the balance, asks for an FX quote and converts at it.',
    [...QUOTE_KEYS, ...LABELS],
    (set) => {
      const input = quoteInput(set);
      const extra = conversionLabels(set);
      return async (d) => {
        asOverride(() => d.checkQuote(input));
        await d.topUp(String(input.source_amount), 'USD');
        const quote = await d.createQuote(input);
        await d.convert(quote, extra);
        return quote;
      };
    },
  ),
  recipe(
    'fx_quote.expired',
    "Asks for an FX quote locked five minutes and advances the merchant's clock past it.",
    QUOTE_KEYS,
    (set) => {
      const input = quoteInput(set);
      return async (d) => {
        const quote = await d.createQuote(input);
        await d.advance(301);
        return quote;
      };
    },
    true,
  ),
  recipe(
    'fx_conversion.completed',
    'Tops up the balance, asks for an FX quote and converts at it.',
    [...QUOTE_KEYS, ...LABELS],
    (set) => {
      const input = quoteInput(set);
      const extra = conversionLabels(set);
      return async (d) => {
        asOverride(() => d.checkQuote(input));
        await d.topUp(String(input.source_amount), 'USD');
        return d.convert(await d.createQuote(input), extra);
      };
    },
  ),
];

const SETTLEMENT_KEYS = ['target_currency', 'source_amount', ...LABELS] as const;

function settlementRecipe(
  type: string,
  drives: string,
  then: (d: Driver, id: string, set: Overrides) => Promise<void>,
  extraKeys: readonly string[] = [],
): Recipe {
  return recipe(type, drives, [...SETTLEMENT_KEYS, ...extraKeys], (set) => {
    const quote = quoteInput(set);
    const extra = conversionLabels(set);
    if (set.failure_code !== undefined && !(set.failure_code in FAILURE_REASONS))
      throw new SandbankError('parameter_invalid', {
        param: 'set.failure_code',
        message: `A failure code is one of ${Object.keys(FAILURE_REASONS).join(', ')}.`,
      });
    return async (d) => {
      asOverride(() => d.checkQuote(quote));
      await d.topUp(String(quote.source_amount), 'USD');
      const id = await d.createSettlement(quote, extra);
      await then(d, id, set);
      return id;
    };
  });
}

const settlements: Recipe[] = [
  settlementRecipe(
    'fx_settlement.created',
    'Tops up the balance and pays a settlement abroad, converted now (EUR to an IBAN by default).',
    async () => {},
  ),
  settlementRecipe(
    'fx_settlement.converted',
    'The same: a settlement is converted as it is created.',
    async () => {},
  ),
  settlementRecipe('fx_settlement.paid', 'A settlement abroad, then paid (simulate pay).', (d, id) =>
    d.settlementStep(id, 'pay'),
  ),
  settlementRecipe(
    'fx_settlement.failed',
    'A settlement abroad, then refused by the beneficiary bank (failure_code, default AC04).',
    (d, id, set) => d.settlementStep(id, 'fail', set.failure_code),
    ['failure_code'],
  ),
];

// ---------------------------------------------------------------------------------------------
// Webhooks

const webhooks: Recipe[] = [
  recipe(
    'webhook.test',
    "Sends a webhook.test event to an endpoint (endpoint, default the merchant's newest): the merchant needs one.",
    ['endpoint'],
    (set) => async (d) => d.sendTest(set.endpoint),
  ),
];

/** Every recipe, by event type. */
export const RECIPES: ReadonlyMap<string, Recipe> = new Map(
  [
    ...collections,
    ...cardPayments,
    ...refunds,
    ...DISPUTE_RECIPES,
    ...transfers,
    ...nocRecipes,
    ...payouts,
    ...returnDisputeRecipes,
    ...inboundRecipes,
    ...balanceTransactions,
    ...virtualCards,
    ...authorizations,
    ...fx,
    ...settlements,
    ...webhooks,
  ].map((r) => [r.type, r]),
);
