import type { Hono } from 'hono';
import { html } from 'hono/html';
import { confirmMicrodepositsSchema } from '../../modules/counterparties/counterparties.schema.ts';
import type { CounterpartyRow } from '../../modules/counterparties/counterparties.service.ts';
import {
  confirmMicrodeposits,
  sendMicrodeposits,
  sendPrenote,
} from '../../modules/counterparties/counterparties.verification.ts';
import { bankWhen } from '../bank-time.ts';
import { bodyOfForm } from './form-submit.ts';
import { objectStepRoutes } from './object-steps.ts';
import type { DashContext, DashEnv } from './session.ts';
import { actionButton, csrfField, details, type Html } from './ui.ts';

/**
 * A counterparty's account verification on its dashboard page: its state, and the buttons and
 * form it allows — send micro-deposits or a prenote, confirm the micro-deposit amounts. Each calls
 * the service its REST route calls, with the body REST takes.
 */

const pathOf = (id: string) => `/dashboard/counterparties/${encodeURIComponent(id)}`;

export function verificationPart(c: DashContext, row: CounterpartyRow): Html {
  const v = row.verification;
  const startable = row.verificationState === 'unverified' || row.verificationState === 'verification_failed';
  const confirmable = row.verificationState === 'verification_pending' && v?.method === 'microdeposits';
  return html`<section class="card" data-testid="verification"><h2>Account verification</h2>${details([
    ['Status', html`<span data-testid="verification-status">${row.verificationState}</span>`],
    ['Method', v?.method],
    [
      v?.method === 'prenote' ? 'Live ACH entries from' : 'Micro-deposits arrive',
      v && bankWhen(new Date(v.available_at)),
    ],
    ['Attempts remaining', v?.attempts_remaining ?? null],
    ['Failure', v?.failure_code && `${v.failure_code}: ${v.failure_reason}`],
    ['Verified', v?.verified_at && bankWhen(new Date(v.verified_at))],
  ])}
  ${
    startable
      ? html`<div class="actions">
  ${actionButton(c, `${pathOf(row.id)}/microdeposits`, 'Send micro-deposits', { testId: 'send-microdeposits' })}
  ${actionButton(c, `${pathOf(row.id)}/prenote`, 'Send a prenote', { testId: 'send-prenote' })}
</div>`
      : ''
  }
  ${
    confirmable
      ? html`<form method="post" action="${pathOf(row.id)}/microdeposits/confirm" data-testid="confirm-microdeposits-form">
  ${csrfField(c)}
  <input name="amounts[0]" inputmode="decimal" placeholder="0.32" aria-label="First amount" data-testid="microdeposit-0">
  <input name="amounts[1]" inputmode="decimal" placeholder="0.45" aria-label="Second amount" data-testid="microdeposit-1">
  <button type="submit" data-testid="confirm-microdeposits">Confirm the amounts</button>
</form>`
      : ''
  }
<p class="muted small">Micro-deposits (0.32 and 0.45, ACCTVERIFY) arrive with the next Same-Day ACH window; a prenote allows live ACH entries from the third banking day after it settles.</p></section>`;
}

export function registerVerificationRoutes(app: Hono<DashEnv>): void {
  objectStepRoutes<CounterpartyRow>(
    app,
    '/counterparties',
    (row) => `Verification: ${row.verificationState}.`,
    {
      microdeposits: (svc, id) => sendMicrodeposits(svc, id),
      prenote: (svc, id) => sendPrenote(svc, id),
      'microdeposits/confirm': (svc, id, form) =>
        confirmMicrodeposits(svc, id, bodyOfForm(confirmMicrodepositsSchema, form)),
    },
  );
}
