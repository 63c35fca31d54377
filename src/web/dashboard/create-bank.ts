import type { Hono } from 'hono';
import { html } from 'hono/html';
import { parseInput } from '../../kernel/validation.ts';
import type { ServiceContext } from '../../modules/context.ts';
import { createPayout, createTransfer } from '../../modules/transfers/transfers.create.ts';
import type { TransferRow } from '../../modules/transfers/transfers.resource.ts';
import {
  createPayoutFieldCodes,
  createPayoutSchema,
  createTransferFieldCodes,
  createTransferSchema,
} from '../../modules/transfers/transfers.schema.ts';
import { MAGIC_ACCOUNT_CHOICES, ORDINARY_ACCOUNT, TEST_ROUTING_NUMBER } from '../magic-accounts.ts';
import {
  amountRow,
  availableUsd,
  detailPath,
  type Form,
  fillLink,
  formCard,
  labelInputs,
  present,
  registerForm,
  textField,
} from './create-form.ts';
import { selectOf } from './form-submit.ts';
import type { DashContext, DashEnv } from './session.ts';
import { type Flash, type Html, money } from './ui.ts';

/**
 * Bank transfers and payouts from the dashboard (the services of POST /v1/transfers and
 * POST /v1/payouts), with a picker of the rails' magic accounts: links that fill the
 * routing and account numbers, and a select that works without script.
 */

/** The bank account of the form; a magic account chosen in the select is used when the account number is blank. */
function accountOf(form: Form): Form {
  const choice = form.account_number
    ? undefined
    : MAGIC_ACCOUNT_CHOICES.find((candidate) => candidate.key === form.magic_account);
  return {
    ...(form.account_name ? { name: form.account_name } : {}),
    routing_number: choice?.routingNumber ?? form.routing_number ?? '',
    account_number: choice?.accountNumber ?? form.account_number ?? '',
    account_type: form.account_type || 'checking',
  };
}

function magicSelect(flash: Flash | null): Html {
  return selectOf(
    flash,
    {
      name: 'magic_account',
      label: 'Or pick a magic account (used when the account number is blank)',
      fallback: '',
      testId: 'field-magic_account',
    },
    [
      ['', '—'],
      ...MAGIC_ACCOUNT_CHOICES.map((choice): [string, string] => [
        choice.key,
        `${choice.routingNumber} / ${choice.accountNumber} — ${choice.outcome}`,
      ]),
    ],
  );
}

function accountFields(flash: Flash | null, who: string): Html {
  return html`${textField(flash, { name: 'account_name', label: `${who} name`, required: true })}
    <div class="row">
      ${textField(flash, { name: 'routing_number', label: 'Routing number', inputmode: 'numeric', placeholder: TEST_ROUTING_NUMBER })}
      ${textField(flash, { name: 'account_number', label: 'Account number', inputmode: 'numeric', placeholder: ORDINARY_ACCOUNT })}
      ${selectOf(
        flash,
        { name: 'account_type', label: 'Account type', fallback: 'checking', testId: 'field-account_type' },
        [
          ['checking', 'checking'],
          ['savings', 'savings'],
        ],
      )}
    </div>
    ${magicSelect(flash)}`;
}

/** The side card of both pages: the available balance and the magic accounts as fill links. */
async function pickerCard(svc: ServiceContext, formId: string): Promise<Html> {
  return html`<section class="card" data-testid="magic-accounts">
  ${await availableUsd(svc)}
  <h2>Magic accounts</h2>
  <p class="muted">Click to fill the routing and account numbers. Every other valid account succeeds; the clock panel moves the rails along.</p>
  <ul>${MAGIC_ACCOUNT_CHOICES.map(
    (choice) =>
      html`<li>${fillLink(formId, { routing_number: choice.routingNumber, account_number: choice.accountNumber }, `${choice.routingNumber} / ${choice.accountNumber}`, 'magic-account')} — ${choice.outcome}</li>`,
  )}</ul>
</section>`;
}

const RAIL_OPTIONS: [string, string][] = [
  ['ach', 'ACH (next window, settles the next banking day)'],
  ['same_day_ach', 'Same-Day ACH'],
  ['rtp', 'RTP (seconds, 24×7, credits only)'],
  ['fednow', 'FedNow (seconds, 24×7, credits only)'],
];

function entryNotice(row: TransferRow, what: string): string {
  return `${what} ${row.id} (${row.rail}, ${row.direction}) created for ${money(row.amount, row.currency)}: ${row.state}.`;
}

// ---------------------------------------------------------------------------------------------
// Transfers

const TRANSFER = { id: 'transfer-form', action: '/dashboard/transfers/new' };

async function createTransferFromForm(svc: ServiceContext, form: Form) {
  const body = {
    ...present(form, ['rail', 'direction', 'amount', 'currency', 'sec_code', 'reference', 'description']),
    counterparty: accountOf(form),
  };
  const row = await createTransfer(svc, parseInput(createTransferSchema, body, createTransferFieldCodes));
  return { to: detailPath(row.id), notice: entryNotice(row, 'Transfer') };
}

function transferForm(c: DashContext, flash: Flash | null): Html {
  return formCard(
    c,
    { ...TRANSFER, title: 'New transfer', submit: 'Create transfer' },
    html`<div class="row">
      ${selectOf(flash, { name: 'rail', label: 'Rail', fallback: 'ach', testId: 'field-rail' }, RAIL_OPTIONS)}
      ${selectOf(
        flash,
        { name: 'direction', label: 'Direction', fallback: 'credit', testId: 'field-direction' },
        [
          ['credit', 'credit — send money'],
          ['debit', 'debit — pull money'],
        ],
      )}
    </div>
    ${amountRow(flash)}
    ${accountFields(flash, 'Counterparty')}
    ${selectOf(
      flash,
      { name: 'sec_code', label: 'SEC code (ACH only)', fallback: '', testId: 'field-sec_code' },
      [
        ['', 'default (CCD)'],
        ['PPD', 'PPD — consumer'],
        ['CCD', 'CCD — business'],
        ['WEB', 'WEB — internet-authorized'],
      ],
    )}
    ${labelInputs(flash)}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Payouts

const PAYOUT = { id: 'payout-form', action: '/dashboard/payouts/new' };

async function createPayoutFromForm(svc: ServiceContext, form: Form) {
  const body = {
    ...present(form, ['amount', 'currency', 'method', 'reference', 'description']),
    destination: accountOf(form),
  };
  const row = await createPayout(svc, parseInput(createPayoutSchema, body, createPayoutFieldCodes));
  return { to: detailPath(row.id), notice: entryNotice(row, 'Payout') };
}

function payoutForm(c: DashContext, flash: Flash | null): Html {
  return formCard(
    c,
    { ...PAYOUT, title: 'New payout', submit: 'Pay out' },
    html`${amountRow(flash, selectOf(flash, { name: 'method', label: 'Method', fallback: 'ach', testId: 'field-method' }, RAIL_OPTIONS))}
    ${accountFields(flash, 'Your account holder')}
    ${labelInputs(flash)}`,
  );
}

export function registerBankForms(app: Hono<DashEnv>): void {
  registerForm(
    app,
    { path: TRANSFER.action, title: 'Send or pull a bank transfer', active: 'transfer' },
    async (c, flash, svc) => html`${transferForm(c, flash)}${await pickerCard(svc, TRANSFER.id)}`,
    createTransferFromForm,
  );
  registerForm(
    app,
    { path: PAYOUT.action, title: 'Pay out', active: 'payout' },
    async (c, flash, svc) => html`${payoutForm(c, flash)}${await pickerCard(svc, PAYOUT.id)}`,
    createPayoutFromForm,
  );
}
