import { EXPIRE_AUTHORIZATION_JOB, expireAuthorizationJob } from './card-payments/card-payments.capture.ts';
import { MAGIC_DISPUTE_JOB } from './card-payments/card-payments.disputes.ts';
import { SETTLE_REFUND_JOB, settleRefundJob } from './card-payments/card-payments.refund.ts';
import { expireTokenJob, TOKEN_EXPIRY_JOB } from './card-payments/card-payments.tokens.ts';
import { COLLECTION_EXPIRY_JOB, expireCollectionJob } from './collections/collections.service.ts';
import {
  DISPUTE_DUE_JOB,
  DISPUTE_REVIEW_JOB,
  disputeDueJob,
  disputeReviewJob,
  magicDisputeJob,
} from './disputes/disputes.service.ts';
import { EXPIRE_FX_QUOTE_JOB, expireQuoteJob } from './fx/fx.quotes.ts';
import { paySettlementJob } from './fx/fx.settle.ts';
import { PAY_FX_SETTLEMENT_JOB } from './fx/fx.settlements.ts';
import { INBOUND_SETTLE_JOB, settleInboundJob } from './inbound-transfers/inbound-transfers.service.ts';
import { EXPIRE_ISSUING_AUTHORIZATION_JOB } from './issuing/issuing.authorize.ts';
import { expireIssuingAuthorizationJob } from './issuing/issuing.settle.ts';
import { FUNDS_AVAILABLE_JOB, releasePendingFunds } from './ledger/ledger.funds.ts';
import { nocJob, TRANSFER_NOC_JOB } from './nocs/nocs.service.ts';
import { registerJobHandler } from './scheduler/scheduler.service.ts';
import {
  answerRtpJob,
  returnTransferJob,
  settleTransferJob,
  submitTransferJob,
} from './transfers/transfers.jobs.ts';
import {
  TRANSFER_RETURN_JOB,
  TRANSFER_RTP_JOB,
  TRANSFER_SETTLE_JOB,
  TRANSFER_SUBMIT_JOB,
} from './transfers/transfers.rows.ts';

/**
 * Every kind of due work and the module function that does it. Registered once by the app; the
 * reactions of one module to another's change are in reactions.ts.
 */
export function registerJobs(): void {
  registerJobHandler(COLLECTION_EXPIRY_JOB, expireCollectionJob);
  registerJobHandler(FUNDS_AVAILABLE_JOB, releasePendingFunds);
  registerJobHandler(EXPIRE_AUTHORIZATION_JOB, expireAuthorizationJob);
  registerJobHandler(SETTLE_REFUND_JOB, settleRefundJob);
  registerJobHandler(TOKEN_EXPIRY_JOB, expireTokenJob);
  registerJobHandler(MAGIC_DISPUTE_JOB, magicDisputeJob);
  registerJobHandler(DISPUTE_DUE_JOB, disputeDueJob);
  registerJobHandler(DISPUTE_REVIEW_JOB, disputeReviewJob);
  registerJobHandler(TRANSFER_SUBMIT_JOB, submitTransferJob);
  registerJobHandler(TRANSFER_SETTLE_JOB, settleTransferJob);
  registerJobHandler(TRANSFER_RETURN_JOB, returnTransferJob);
  registerJobHandler(TRANSFER_RTP_JOB, answerRtpJob);
  registerJobHandler(INBOUND_SETTLE_JOB, settleInboundJob);
  registerJobHandler(TRANSFER_NOC_JOB, nocJob);
  registerJobHandler(EXPIRE_ISSUING_AUTHORIZATION_JOB, expireIssuingAuthorizationJob);
  registerJobHandler(EXPIRE_FX_QUOTE_JOB, expireQuoteJob);
  registerJobHandler(PAY_FX_SETTLEMENT_JOB, paySettlementJob);
}
