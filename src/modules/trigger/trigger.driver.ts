import { and, eq } from 'drizzle-orm';
import { inTransaction } from '../../db/tx.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { createCardPayment } from '../card-payments/card-payments.authorize.ts';
import { voidCardPayment } from '../card-payments/card-payments.capture.ts';
import { refundCardPayment } from '../card-payments/card-payments.refund.ts';
import type { CreateCardPaymentInput, RefundInput } from '../card-payments/card-payments.schema.ts';
import { advanceClock } from '../clock/clock.change.ts';
import { clockFor } from '../clock/clock.service.ts';
import { payCollection } from '../collections/collections.pay.ts';
import type { CreateCollectionInput } from '../collections/collections.schema.ts';
import { cancelCollection, createCollection } from '../collections/collections.service.ts';
import type { ServiceContext } from '../context.ts';
import type {
  ResolveDisputeInput,
  SimulateDisputeInput,
  UpdateDisputeInput,
} from '../disputes/disputes.schema.ts';
import {
  closeDispute,
  resolveDispute,
  simulateDispute,
  updateDispute,
} from '../disputes/disputes.service.ts';
import { createConversion } from '../fx/fx.conversions.ts';
import { priceQuote } from '../fx/fx.pricing.ts';
import { createQuote } from '../fx/fx.quotes.ts';
import type { CreateQuoteInput } from '../fx/fx.schema.ts';
import { simulateSettlementFail, simulateSettlementPay } from '../fx/fx.settle.ts';
import { createSettlement } from '../fx/fx.settlements.ts';
import { simulateAuthorization } from '../issuing/issuing.authorize.ts';
import { createVirtualCard, updateVirtualCard } from '../issuing/issuing.cards.ts';
import type {
  CreateVirtualCardInput,
  SimulateAuthorizationInput,
  UpdateVirtualCardInput,
} from '../issuing/issuing.schema.ts';
import {
  captureAuthorization,
  refundAuthorization,
  reverseAuthorization,
} from '../issuing/issuing.settle.ts';
import { reversePosting } from '../ledger/ledger.reverse.ts';
import type { TopUpInput } from '../ledger/ledger.schema.ts';
import { topUpBalance } from '../ledger/ledger.topup.ts';
import { nocSteps } from '../nocs/nocs.service.ts';
import { createPayout, createTransfer } from '../transfers/transfers.create.ts';
import { debitsOfCollection } from '../transfers/transfers.read.ts';
import type { CreatePayoutInput, CreateTransferInput } from '../transfers/transfers.schema.ts';
import { payoutSteps, transferSteps } from '../transfers/transfers.steps.ts';
import { transfers } from '../transfers/transfers.table.ts';
import { listEndpoints, sendTestEvent } from '../webhooks/webhooks.service.ts';

/** The accounts abroad a recipe's settlement pays, by currency (each one paid, not a failing one). */
const DESTINATIONS = {
  EUR: { name: 'Trigger Beneficiary', iban: 'DE89370400440532013000' },
  GBP: { name: 'Trigger Beneficiary', iban: 'GB29NWBK60161331926819' },
  JPY: { name: 'Trigger Beneficiary', bank_code: '0001', branch_code: '001', account_number: '1234567' },
} as const;

/**
 * What a recipe may do, as a user would through the API: each step calls the service behind the
 * corresponding operation, with the merchant's clock read afresh (a step may have advanced it).
 */
export class Driver {
  private clock: ServiceContext['clock'];

  constructor(private readonly base: ServiceContext) {
    this.clock = base.clock;
  }

  private get ctx(): ServiceContext {
    return { ...this.base, clock: this.clock };
  }

  now(): Date {
    return this.clock.now();
  }

  /** The service context of the next step (the clock read afresh): for recipes of other modules' services. */
  context(): ServiceContext {
    return this.ctx;
  }

  /** POST /v1/clock/advance {seconds}: runs every piece of the merchant's work that falls due. */
  async advance(seconds: number): Promise<void> {
    await advanceClock(this.ctx, { seconds });
    this.clock = await clockFor(this.base.db, this.base.merchant.id);
  }

  /** POST /v1/simulate/balance/top_up. */
  async topUp(amount: unknown, currency: string): Promise<void> {
    await topUpBalance(this.ctx, { amount: String(amount), currency } as TopUpInput);
  }

  /** A top-up: its balance transaction's id. */
  async topUpPosting(input: { amount: string; currency: string; description?: string }): Promise<string> {
    return (await topUpBalance(this.ctx, input as TopUpInput)).id;
  }

  /**
   * Undoes a posted top-up with the ledger's reversal (a new posting of the negated entries), as a
   * top-up whose funding bounced would be; no operation of the API reverses a posting yet.
   */
  async reversePosting(postingId: string): Promise<void> {
    await inTransaction(this.base.db, undefined, (tx) =>
      reversePosting(tx, this.base.merchant.id, postingId, this.now()),
    );
  }

  async createCollection(input: CreateCollectionInput): Promise<{ id: string; reference: string }> {
    return createCollection(this.ctx, input);
  }

  async cancelCollection(reference: string): Promise<void> {
    await cancelCollection(this.ctx, reference);
  }

  async payCollectionByCard(reference: string, number: string): Promise<void> {
    const card = { number, exp_month: 12, exp_year: this.now().getUTCFullYear() + 3, cvc: '123' };
    await payCollection(this.ctx, reference, { method: 'card', card });
  }

  async payCollectionByBank(reference: string, accountNumber: string): Promise<void> {
    await payCollection(this.ctx, reference, {
      method: 'bank_account',
      bank_account: { routing_number: '110000000', account_number: accountNumber, account_type: 'checking' },
    });
  }

  /** Submits the ACH debit that pays a collection (unless its window already has): its id. */
  async submitCollectionDebit(collectionId: string): Promise<string> {
    const [debit] = await debitsOfCollection(this.base.db, this.base.merchant.id, collectionId);
    if (!debit) throw new SandbankError('invalid_state', { message: 'The collection has no bank debit.' });
    if (debit.state === 'pending') await transferSteps.submit(this.ctx, debit.id);
    return debit.id;
  }

  async createCardPayment(input: CreateCardPaymentInput): Promise<string> {
    return (await createCardPayment(this.ctx, input)).id;
  }

  /** A payment the network declines: committed, then refused with card_declined naming it. */
  async createDeclinedCardPayment(input: CreateCardPaymentInput): Promise<string> {
    try {
      await createCardPayment(this.ctx, input);
    } catch (error) {
      if (error instanceof SandbankError && error.code === 'card_declined' && error.objectId)
        return error.objectId;
      throw error;
    }
    throw new SandbankError('invalid_state', { message: 'The card was not declined.' });
  }

  async voidCardPayment(id: string): Promise<void> {
    await voidCardPayment(this.ctx, id);
  }

  /** POST /v1/card_payments/{id}/refunds: the refund's id. */
  async refund(
    id: string,
    input: { amount?: string; reason?: RefundInput['reason'] | undefined },
  ): Promise<string> {
    const { refund } = await refundCardPayment(this.ctx, id, {
      ...(input.amount ? { amount: input.amount } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
    });
    return refund.id;
  }

  /** POST /v1/simulate/card_payments/{id}/dispute: the dispute's id. */
  async openDispute(paymentId: string, input: SimulateDisputeInput): Promise<string> {
    return (await simulateDispute(this.ctx, paymentId, input)).id;
  }

  /** POST /v1/disputes/{id} (evidence, submitted unless submit is false). */
  async updateDispute(id: string, input: UpdateDisputeInput): Promise<void> {
    await updateDispute(this.ctx, id, input);
  }

  /** POST /v1/disputes/{id}/close. */
  async closeDispute(id: string): Promise<void> {
    await closeDispute(this.ctx, id);
  }

  /** POST /v1/simulate/disputes/{id}/resolve. */
  async resolveDispute(id: string, input: ResolveDisputeInput): Promise<void> {
    await resolveDispute(this.ctx, id, input);
  }

  async createTransfer(input: CreateTransferInput): Promise<string> {
    return (await createTransfer(this.ctx, input)).id;
  }

  /** The balance transaction holding a credit transfer's amount on available: its id. */
  async transferHold(id: string): Promise<string> {
    const [row] = await this.base.db
      .select({ holdId: transfers.holdId })
      .from(transfers)
      .where(and(eq(transfers.id, id), eq(transfers.merchantId, this.base.merchant.id)));
    if (!row?.holdId) throw new SandbankError('invalid_state', { message: 'The transfer holds nothing.' });
    return row.holdId;
  }

  async stepTransfer(step: 'submit' | 'settle' | 'cancel', id: string): Promise<void> {
    await transferSteps[step](this.ctx, id);
  }

  async returnTransfer(id: string, code: string): Promise<void> {
    await transferSteps.return(this.ctx, id, { code });
  }

  /** POST /v1/simulate/{transfers|payouts}/{id}/dishonor_return | contest_dishonored_return {code}. */
  async returnDisputeStep(
    kind: 'transfer' | 'payout',
    step: 'dishonorReturn' | 'contestDishonoredReturn',
    id: string,
    code: string,
  ): Promise<void> {
    await (kind === 'transfer' ? transferSteps : payoutSteps)[step](this.ctx, id, { code });
  }

  /** POST /v1/simulate/transfers/{id}/notification_of_change and …/notification_of_change/refuse. */
  async nocStep(step: 'receive' | 'refuse', id: string, code: string): Promise<void> {
    await nocSteps[step](this.ctx, id, { code });
  }

  async createPayout(input: CreatePayoutInput): Promise<string> {
    return (await createPayout(this.ctx, input)).id;
  }

  async stepPayout(step: 'submit' | 'settle' | 'cancel', id: string): Promise<void> {
    await payoutSteps[step](this.ctx, id);
  }

  async returnPayout(id: string, code: string): Promise<void> {
    await payoutSteps.return(this.ctx, id, { code });
  }

  async createVirtualCard(input: CreateVirtualCardInput): Promise<string> {
    return (await createVirtualCard(this.ctx, input)).id;
  }

  async updateVirtualCard(id: string, input: UpdateVirtualCardInput): Promise<void> {
    await updateVirtualCard(this.ctx, id, input);
  }

  async authorize(cardId: string, input: SimulateAuthorizationInput): Promise<string> {
    return (await simulateAuthorization(this.ctx, cardId, input)).id;
  }

  async authorizationStep(step: 'capture' | 'reverse' | 'refund', id: string): Promise<void> {
    const run = { capture: captureAuthorization, reverse: reverseAuthorization, refund: refundAuthorization }[
      step
    ];
    await run(this.ctx, id);
  }

  async createQuote(input: CreateQuoteInput): Promise<string> {
    return (await createQuote(this.ctx, input)).id;
  }

  /**
   * The checks POST /v1/fx/quotes makes before writing (an amount that converts to nothing at the
   * current rate, or more than a quote converts): run before a recipe tops up the balance for it.
   */
  checkQuote(input: CreateQuoteInput): void {
    priceQuote(this.ctx.config.fx, this.now(), {
      target: input.target_currency,
      sourceAmount: input.source_amount,
      targetAmount: input.target_amount,
      lockDuration: input.lock_duration ?? 'five_minutes',
    });
  }

  async convert(quoteId: string, labels: Record<string, unknown>): Promise<string> {
    return (await createConversion(this.ctx, { quote_id: quoteId, ...labels })).id;
  }

  /** POST /v1/fx/settlements, converted now from USD, to a destination that is paid. */
  async createSettlement(quote: CreateQuoteInput, labels: Record<string, unknown>): Promise<string> {
    const settlement = await createSettlement(this.ctx, {
      target_currency: quote.target_currency,
      ...(quote.source_amount !== undefined ? { source_amount: quote.source_amount } : {}),
      destination: { ...DESTINATIONS[quote.target_currency] },
      ...labels,
    });
    return settlement.id;
  }

  async settlementStep(id: string, step: 'pay' | 'fail', code?: string): Promise<void> {
    if (step === 'pay') await simulateSettlementPay(this.ctx, id);
    else await simulateSettlementFail(this.ctx, id, code ? { code } : {});
  }

  /** POST /v1/webhook_endpoints/{id}/test: to `endpoint`, or the merchant's newest endpoint. */
  async sendTest(endpoint: string | undefined): Promise<string> {
    const id = endpoint ?? (await listEndpoints(this.ctx, { limit: 1 })).data[0]?.id;
    if (!id)
      throw new SandbankError('parameter_missing', {
        param: 'set.endpoint',
        message:
          'webhook.test is sent to a webhook endpoint and this merchant has none: create one (POST /v1/webhook_endpoints) or set endpoint=we_….',
      });
    return sendTestEvent(this.ctx, id);
  }
}
