import { html } from 'hono/html';
import { disputeMachine } from '../../modules/disputes/disputes.machine.ts';
import { codesOf, findReasonCode, networkOf } from '../../modules/disputes/disputes.networks.ts';
import type { DisputeRow } from '../../modules/disputes/disputes.resource.ts';
import { DISPUTE_REASONS, EVIDENCE_FIELDS } from '../../modules/disputes/disputes.schema.ts';
import { selectOf } from './form-submit.ts';
import type { DashContext } from './session.ts';
import { actionButton, csrfField, type Flash, formValue, type Html } from './ui.ts';

/**
 * The dispute page's forms (disputes.ts has its views and routes): the evidence form, the buttons a
 * dispute's state allows (accept, simulate the issuer's decision) and the form that simulates a
 * cardholder disputing a captured card payment. Each posts to a route of disputes.ts, which reads
 * it with bodyOfForm: the inputs carry the body's names (`evidence[product_description]`, `submit`
 * from the button pressed; `reason`, `amount`, `inquiry`).
 */

export const DISPUTES = '/dashboard/disputes';
export const disputePath = (id: string) => `${DISPUTES}/${encodeURIComponent(id)}`;

const EVIDENCE_LABELS: Record<(typeof EVIDENCE_FIELDS)[number], string> = {
  product_description: 'Product description',
  customer_name: 'Customer name',
  customer_email_address: 'Customer email',
  customer_communication: 'Customer communication',
  shipping_tracking_number: 'Shipping tracking number',
  refund_policy: 'Refund policy',
  cancellation_rebuttal: 'Cancellation rebuttal',
  duplicate_charge_explanation: 'Duplicate charge explanation',
  uncategorized_text: 'Other evidence',
};

const OPEN_FOR_EVIDENCE: readonly string[] = ['needs_response', 'warning_needs_response'];

export function evidenceForm(c: DashContext, row: DisputeRow, flash: Flash | null): Html {
  if (!OPEN_FOR_EVIDENCE.includes(row.state)) return html``;
  return html`<section class="card"><h2>Evidence</h2>
<form method="post" action="${disputePath(row.id)}/evidence" data-testid="evidence-form">
  ${csrfField(c)}
  ${EVIDENCE_FIELDS.map(
    (field) => html`<div><label for="${field}">${EVIDENCE_LABELS[field]}</label>
  <textarea id="${field}" name="evidence[${field}]" maxlength="5000" rows="2" data-testid="evidence-${field}">${formValue(flash, `evidence[${field}]`, row.evidence[field] ?? '')}</textarea></div>`,
  )}
  <div class="actions">
    <button type="submit" name="submit" value="true" data-testid="evidence-submit">Submit evidence</button>
    <button type="submit" name="submit" value="false" class="secondary" data-testid="evidence-save">Save draft</button>
  </div>
</form>
<p class="muted small">Submitting starts the issuer's two-day review (POST /v1/disputes/{id}). In this sandbox the text <code>winning_evidence</code> wins it and <code>losing_evidence</code> loses it; other evidence stays under review until you simulate the decision.</p>
</section>`;
}

export function actionsPart(c: DashContext, row: DisputeRow): Html {
  if (disputeMachine.final.includes(row.state))
    return html`<section class="card" data-testid="dispute-actions"><h2>Actions</h2><p class="muted" data-testid="no-actions">None: this dispute is ${row.state} (final).</p></section>`;
  const inquiry = row.state.startsWith('warning_');
  return html`<section class="card" data-testid="dispute-actions"><h2>Actions</h2><div class="actions">
  ${
    OPEN_FOR_EVIDENCE.includes(row.state)
      ? actionButton(
          c,
          `${disputePath(row.id)}/close`,
          inquiry ? 'Accept (close the inquiry)' : 'Accept (lose)',
          {
            className: 'danger',
            testId: 'dispute-close',
          },
        )
      : ''
  }
  ${actionButton(
    c,
    `${disputePath(row.id)}/resolve`,
    inquiry ? 'Simulate: inquiry closed' : 'Simulate: won',
    {
      fields: { outcome: 'won' },
      testId: 'dispute-resolve-won',
    },
  )}
  ${actionButton(
    c,
    `${disputePath(row.id)}/resolve`,
    inquiry ? 'Simulate: escalate to chargeback' : 'Simulate: lost',
    {
      className: 'danger',
      fields: { outcome: 'lost' },
      testId: 'dispute-resolve-lost',
    },
  )}
</div></section>`;
}

/** "Visa 10.4 · Other Fraud – Card-Absent Environment (fraud)": a dispute's code as a person reads it. */
export function networkCodeLabel(row: Pick<DisputeRow, 'network' | 'networkReasonCode'>): string {
  const rule = findReasonCode(row.network, row.networkReasonCode);
  return rule
    ? `${row.network} ${rule.code} · ${rule.name} (${rule.category.replaceAll('_', ' ')})`
    : row.networkReasonCode;
}

/** The payment's network's codes, each with the reasons it carries and its window. */
function codeOptions(brand: string): [string, string][] {
  return codesOf(networkOf(brand)).map((rule) => [
    rule.code,
    `${rule.code} · ${rule.name} — ${rule.reasons.join('/').replaceAll('_', ' ')}, ${rule.windowDays} days`,
  ]);
}

export function openForm(
  c: DashContext,
  flash: Flash | null,
  payment: { id: string; brand: string; remaining: string },
): Html {
  return html`<section class="card">
<form method="post" action="${DISPUTES}" data-testid="open-dispute-form">
  ${csrfField(c)}
  <input type="hidden" name="card_payment" value="${payment.id}">
  <div class="row">
    ${selectOf(flash, { name: 'reason', label: 'Reason', fallback: '', testId: 'dispute-reason-select' }, [
      ['', 'the code’s (else general)'],
      ...DISPUTE_REASONS.map((reason): [string, string] => [reason, reason.replaceAll('_', ' ')]),
    ])}
    ${selectOf(
      flash,
      {
        name: 'network_reason_code',
        label: `${payment.brand} reason code`,
        fallback: '',
        testId: 'dispute-code-select',
      },
      [['', 'the reason’s'], ...codeOptions(payment.brand)],
    )}
    <div><label for="amount">Amount (USD)</label>
    <input id="amount" name="amount" inputmode="decimal" placeholder="${payment.remaining} (all)" value="${formValue(flash, 'amount')}" data-testid="dispute-amount-input"></div>
    <div><label for="inquiry"><input type="checkbox" id="inquiry" name="inquiry" value="true" ${formValue(flash, 'inquiry') === 'true' ? 'checked' : ''} data-testid="dispute-inquiry"> An inquiry (nothing debited)</label></div>
  </div>
  <button type="submit" data-testid="open-dispute">Dispute the payment</button>
</form>
<p class="muted small">The cardholder disputes the payment (POST /v1/simulate/card_payments/{id}/dispute). A chargeback debits the amount and a 15.00 USD fee from the available balance at once; evidence is due in 7 days. Each reason code has the network's window, counted in calendar days from the capture's date: past it the dispute is refused. Visa allows one dispute per payment besides 10.5, Mastercard several partial ones, American Express one.</p>
</section>`;
}
