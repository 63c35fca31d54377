import { SandbankError } from '../../kernel/errors.ts';
import type { Machine } from '../../kernel/state-machine.ts';
import { parseInput } from '../../kernel/validation.ts';
import { captureCardPayment, voidCardPayment } from '../card-payments/card-payments.capture.ts';
import { cardPaymentMachine } from '../card-payments/card-payments.machine.ts';
import { refundCardPayment } from '../card-payments/card-payments.refund.ts';
import { amountFieldCodes, captureSchema, refundSchema } from '../card-payments/card-payments.schema.ts';
import { completeCardPayment3ds } from '../card-payments/card-payments.three-ds.ts';
import { collectionMachine } from '../collections/collections.machine.ts';
import { cancelCollection } from '../collections/collections.service.ts';
import type { ServiceContext } from '../context.ts';
import { fxSettlementMachine } from '../fx/fx.machine.ts';
import { failSettlementSchema } from '../fx/fx.schema.ts';
import { simulateSettlementFail, simulateSettlementPay } from '../fx/fx.settle.ts';
import { issuingAuthorizationMachine } from '../issuing/issuing.machine.ts';
import { authorizationAmountFieldCodes, authorizationAmountSchema } from '../issuing/issuing.schema.ts';
import {
  captureAuthorization,
  refundAuthorization,
  reverseAuthorization,
} from '../issuing/issuing.settle.ts';
import { refuseNocSchema, simulateNocSchema } from '../nocs/nocs.schema.ts';
import { nocSteps } from '../nocs/nocs.service.ts';
import { achMachineOf, wireMachineOf } from '../transfers/transfers.machine.ts';
import { isAchRail, isWireRail } from '../transfers/transfers.rails.ts';
import {
  contestDishonoredReturnSchema,
  dishonorReturnSchema,
  returnTransferSchema,
  wireRecallSchema,
} from '../transfers/transfers.schema.ts';
import { type EntrySteps, payoutSteps, transferSteps } from '../transfers/transfers.steps.ts';
import { recallWire } from '../transfers/transfers.wire-steps.ts';
import { requestWsudCopyOf } from '../transfers/transfers.wsud.ts';
import {
  getTransaction,
  type TransactionDetail,
  type TransactionKind,
  type TypedTransaction,
} from './transactions.service.ts';

/**
 * The operations a transaction's state allows (read from its kind's transition table) and running
 * one: each calls the service function of the kind's REST route, with the same body. The detail
 * page offers them (transactions.detail.ts).
 */

/** The operations on a transaction the API offers (each the REST route of the kind's module). */
export const TRANSACTION_ACTIONS = [
  'capture',
  'void',
  'refund',
  'complete_3ds',
  'fail_3ds',
  'cancel',
  'submit',
  'settle',
  'return',
  'dishonor_return',
  'contest_dishonored_return',
  'reverse',
  'pay',
  'fail',
  'notify_change',
  'refuse_change',
  'wsud_copy',
  'recall',
] as const;
export type TransactionAction = (typeof TRANSACTION_ACTIONS)[number];

/** An action's body: the REST body of its route (`amount`, `code`), as strings. */
export type ActionBody = Record<string, string | boolean>;

interface ActionSpec {
  /** The machine events the action may cause: it is allowed when the state allows one of them. */
  events: readonly string[];
  /** Decides instead of `events`, for an action that is no transition (a notification of change). */
  when?: (tx: TypedTransaction) => boolean;
  run: (ctx: ServiceContext, id: string, body: ActionBody) => Promise<unknown>;
}

type KindActions = Partial<Record<TransactionAction, ActionSpec>>;

function entryActions(steps: EntrySteps): KindActions {
  return {
    cancel: { events: ['cancel'], run: (ctx, id) => steps.cancel(ctx, id) },
    submit: { events: ['submit'], run: (ctx, id) => steps.submit(ctx, id) },
    settle: { events: ['settle'], run: (ctx, id) => steps.settle(ctx, id) },
    return: {
      events: ['return_unsettled', 'return'],
      run: (ctx, id, body) => steps.return(ctx, id, parseInput(returnTransferSchema, body)),
    },
    dishonor_return: {
      events: ['dishonor_return'],
      run: (ctx, id, body) => steps.dishonorReturn(ctx, id, parseInput(dishonorReturnSchema, body)),
    },
    contest_dishonored_return: {
      events: ['contest_dishonored_return'],
      run: (ctx, id, body) =>
        steps.contestDishonoredReturn(ctx, id, parseInput(contestDishonoredReturnSchema, body)),
    },
  };
}

/**
 * A settled ACH transfer's notification of change (simulated; again, corrected, after a refusal),
 * and the merchant's refusal of it.
 */
const nocActions: KindActions = {
  notify_change: {
    events: [],
    when: (tx) =>
      tx.kind === 'transfer' &&
      tx.row.state === 'settled' &&
      (tx.row.notificationsOfChange.length === 0 || Boolean(tx.row.notificationsOfChange.at(-1)?.refused_at)),
    run: (ctx, id, body) => nocSteps.receive(ctx, id, parseInput(simulateNocSchema, body)),
  },
  refuse_change: {
    events: [],
    when: (tx) =>
      tx.kind === 'transfer' && tx.row.notificationsOfChange.some((noc) => noc.refused_at === null),
    run: (ctx, id, body) => nocSteps.refuse(ctx, id, parseInput(refuseNocSchema, body)),
  },
  // A return's written statement of unauthorized debit: a copy asked for once.
  wsud_copy: {
    events: [],
    when: (tx) => tx.kind === 'transfer' && Boolean(tx.row.wsud) && !tx.row.wsud?.copy_provided_at,
    run: (ctx, id) => requestWsudCopyOf(ctx, id),
  },
};

/** The body of an issuing authorization's capture, reverse or refund, parsed as REST parses it. */
const amountOf = (body: ActionBody) =>
  parseInput(authorizationAmountSchema, body, authorizationAmountFieldCodes);

/** Each kind's actions, calling the same service functions as the kind's REST routes. */
const ACTIONS: Record<TransactionKind, KindActions> = {
  collection: { cancel: { events: ['cancel'], run: (ctx, id) => cancelCollection(ctx, id) } },
  card_payment: {
    capture: {
      events: ['capture'],
      run: (ctx, id, body) => captureCardPayment(ctx, id, parseInput(captureSchema, body, amountFieldCodes)),
    },
    void: { events: ['void'], run: (ctx, id) => voidCardPayment(ctx, id) },
    refund: {
      events: ['refund', 'refund_in_full'],
      run: (ctx, id, body) => refundCardPayment(ctx, id, parseInput(refundSchema, body, amountFieldCodes)),
    },
    complete_3ds: {
      events: ['complete_3ds'],
      run: (ctx, id) => completeCardPayment3ds(ctx, id, { outcome: 'succeed' }),
    },
    fail_3ds: {
      events: ['fail_3ds'],
      run: (ctx, id) => completeCardPayment3ds(ctx, id, { outcome: 'fail' }),
    },
  },
  transfer: {
    ...entryActions(transferSteps),
    ...nocActions,
    // A completed wire's recall (the merchant's bank asks for the funds back), once.
    recall: {
      events: [],
      when: (tx) =>
        tx.kind === 'transfer' && tx.row.rail === 'wire' && tx.row.state === 'completed' && !tx.row.recall,
      run: (ctx, id, body) => recallWire(ctx, id, parseInput(wireRecallSchema, body)),
    },
  },
  payout: entryActions(payoutSteps),
  issuing_authorization: {
    capture: { events: ['capture'], run: (ctx, id, body) => captureAuthorization(ctx, id, amountOf(body)) },
    reverse: {
      events: ['reverse', 'reverse_part'],
      run: (ctx, id, body) => reverseAuthorization(ctx, id, amountOf(body)),
    },
    refund: { events: ['refund'], run: (ctx, id, body) => refundAuthorization(ctx, id, amountOf(body)) },
  },
  fx_conversion: {},
  fx_settlement: {
    pay: { events: ['pay'], run: (ctx, id) => simulateSettlementPay(ctx, id) },
    fail: {
      events: ['fail'],
      run: (ctx, id, body) => simulateSettlementFail(ctx, id, parseInput(failSettlementSchema, body)),
    },
  },
};

/** The transition table that decides a transaction's actions (RTP entries have no manual steps). */
function machineOf(tx: TypedTransaction): Machine<string, string> | null {
  switch (tx.kind) {
    case 'collection':
      return collectionMachine;
    case 'card_payment':
      return cardPaymentMachine;
    case 'transfer':
    case 'payout':
      return isAchRail(tx.row.rail)
        ? achMachineOf(tx.kind)
        : isWireRail(tx.row.rail)
          ? wireMachineOf(tx.kind)
          : null;
    case 'issuing_authorization':
      return issuingAuthorizationMachine;
    case 'fx_settlement':
      return fxSettlementMachine;
    case 'fx_conversion':
      return null;
  }
}

/**
 * What the transition table allows but the object's amounts or links do not: an ACH debit paying
 * a collection moves with the collection (it cannot be canceled on its own), an issuing
 * authorization of a card payment on this sandbox (the closed loop) moves with that payment, and
 * one refunded in full stays captured with nothing left to refund; a disputed card payment is not
 * refunded.
 */
function heldBack(tx: TypedTransaction, action: TransactionAction): boolean {
  // A closed-loop authorization follows its card payment: the issuer's steps on it are refused.
  if (tx.kind === 'issuing_authorization' && tx.row.cardPaymentId !== null) return true;
  if (action === 'cancel' && (tx.kind === 'transfer' || tx.kind === 'payout'))
    return tx.row.collectionId !== null;
  // Only the return of a settled entry can be dishonored, and not a collection debit's.
  if (action === 'dishonor_return' && (tx.kind === 'transfer' || tx.kind === 'payout'))
    return tx.row.settledAt === null || tx.row.collectionId !== null;
  if (action === 'refund' && tx.kind === 'issuing_authorization')
    return tx.row.amountRefunded >= tx.row.amountCaptured;
  // A wire comes back only as its beneficiary's bank decides (a return, or an honored recall).
  if (action === 'return' && (tx.kind === 'transfer' || tx.kind === 'payout')) return tx.row.rail === 'wire';
  // A disputed card payment is not refunded: its dispute decides where the money goes.
  if (action === 'refund' && tx.kind === 'card_payment') return tx.row.disputeId !== null;
  return false;
}

/** The actions the transaction's current state allows, read from its kind's transition table. */
export function allowedActions(tx: TypedTransaction): TransactionAction[] {
  const machine = machineOf(tx);
  if (!machine) return [];
  return TRANSACTION_ACTIONS.filter((action) => {
    const spec = ACTIONS[tx.kind][action];
    if (!spec || heldBack(tx, action)) return false;
    if (spec.when) return spec.when(tx);
    return spec.events.some((event) => machine.transitions[event]?.from.includes(tx.row.state));
  });
}

export function isTransactionAction(value: string): value is TransactionAction {
  return (TRANSACTION_ACTIONS as readonly string[]).includes(value);
}

/**
 * Runs one of a transaction's actions through its kind's service function (the same as its REST
 * route, with the same body), when its state allows it (409 invalid_state otherwise, naming the
 * actions it does allow); answers the transaction as it is afterwards.
 */
export async function performTransactionAction(
  ctx: ServiceContext,
  id: string,
  action: string,
  body: ActionBody,
): Promise<TransactionDetail> {
  const tx = await getTransaction(ctx, id);
  const allowed = allowedActions(tx);
  const spec = isTransactionAction(action) ? ACTIONS[tx.kind][action] : undefined;
  if (!spec || !(allowed as string[]).includes(action))
    throw new SandbankError('invalid_state', {
      message: `This ${tx.kind.replace(/_/g, ' ')} is ${tx.row.state}; it allows ${allowed.length ? allowed.join(', ') : 'no actions'}, not ${action.slice(0, 40)}.`,
    });
  await spec.run(ctx, tx.row.id, body);
  return getTransaction(ctx, tx.row.id);
}
