import type { Hono } from 'hono';
import { html } from 'hono/html';
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
  registerForm,
  textField,
} from './create-form.ts';
import { bodyOfForm, selectOf } from './form-submit.ts';
import type { DashContext, DashEnv } from './session.ts';
import { type Flash, type Html, money } from './ui.ts';

/**
 * Bank transfers and payouts from the dashboard (the services of POST /v1/transfers and
 * POST /v1/payouts), with a picker of the rails' magic accounts: links that fill the
 * routing and account numbers, and a select that works without script. The inputs carry the
 * body's names (`counterparty[routing_number]`): the form is read as REST reads a form body (bodyOfForm).
 */

/** Where a form's bank account goes in the body. */
type AccountField = 'counterparty' | 'destination';

/**
 * The form as the picker's fill link would leave it (the select works without script): a magic
 * account chosen while the account number is blank fills the routing and account numbers.
 */
function withMagicAccount(form: Form, account: AccountField): Form {
  const { magic_account: key, ...rest } = form;
  const choice = rest[`${account}[account_number]`]
    ? undefined
    : MAGIC_ACCOUNT_CHOICES.find((candidate) => candidate.key === key);
  if (!choice) return rest;
  return {
    ...rest,
    [`${account}[routing_number]`]: choice.routingNumber,
    [`${account}[account_number]`]: choice.accountNumber,
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

/** The bank account's inputs, named as the body's `account` fields (ids without the prefix). */
function accountFields(flash: Flash | null, who: string, account: AccountField): Html {
  return html`${textField(flash, { name: `${account}[name]`, id: 'account_name', label: `${who} name`, required: true })}
    <div class="row">
      ${textField(flash, { name: `${account}[routing_number]`, id: 'routing_number', label: 'Routing number', inputmode: 'numeric', placeholder: TEST_ROUTING_NUMBER })}
      ${textField(flash, { name: `${account}[account_number]`, id: 'account_number', label: 'Account number', inputmode: 'numeric', placeholder: ORDINARY_ACCOUNT })}
      ${selectOf(
        flash,
        {
          name: `${account}[account_type]`,
          id: 'account_type',
          label: 'Account type',
          fallback: 'checking',
          testId: 'field-account_type',
        },
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
  ['wire', 'Wire — Fedwire (operating day 21:00–18:45 ET, final at once, credits only)'],
];

function entryNotice(row: TransferRow, what: string): string {
  return `${what} ${row.id} (${row.rail}, ${row.direction}) created for ${money(row.amount, row.currency)}: ${row.state}.`;
}

// ---------------------------------------------------------------------------------------------
// Transfers

const TRANSFER = { id: 'transfer-form', action: '/dashboard/transfers/new' };

async function createTransferFromForm(svc: ServiceContext, form: Form) {
  const body = bodyOfForm(
    createTransferSchema,
    withMagicAccount(form, 'counterparty'),
    createTransferFieldCodes,
  );
  const row = await createTransfer(svc, body);
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
    ${accountFields(flash, 'Counterparty', 'counterparty')}
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
  const body = bodyOfForm(createPayoutSchema, withMagicAccount(form, 'destination'), createPayoutFieldCodes);
  const row = await createPayout(svc, body);
  return { to: detailPath(row.id), notice: entryNotice(row, 'Payout') };
}

function payoutForm(c: DashContext, flash: Flash | null): Html {
  return formCard(
    c,
    { ...PAYOUT, title: 'New payout', submit: 'Pay out' },
    html`${amountRow(flash, selectOf(flash, { name: 'method', label: 'Method', fallback: 'ach', testId: 'field-method' }, RAIL_OPTIONS))}
    ${accountFields(flash, 'Your account holder', 'destination')}
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
