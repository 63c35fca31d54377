import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { CURRENCY_CODES, type CurrencyCode } from '../../kernel/currency.ts';
import { nachaTotals } from '../../modules/ach-files/ach-files.nacha.ts';
import { achFileText, listAchFiles } from '../../modules/ach-files/ach-files.operations.ts';
import type { AchFileView } from '../../modules/ach-files/ach-files.resource.ts';
import { messageById } from '../../modules/bank-messages/bank-messages.read.ts';
import type { FileAnswer } from '../../modules/operation.ts';
import { statementFile } from '../../modules/statements/statements.operations.ts';
import type { StatementRow } from '../../modules/statements/statements.resource.ts';
import {
  createStatementFieldCodes,
  createStatementSchema,
  intradayQuery,
  statementFileQuery,
} from '../../modules/statements/statements.schema.ts';
import {
  createStatement,
  getStatement,
  intradayDocument,
  listStatements,
  statementDocument,
} from '../../modules/statements/statements.service.ts';
import { bankWhen } from '../bank-time.ts';
import { bodyOfForm, cursorOf, olderLink, submitForm } from './form-submit.ts';
import { shell } from './layout.ts';
import { type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, formValue, type Html, money, takeFlash } from './ui.ts';

/**
 * Statements in the dashboard: the list of the merchant's statements with their balances and a
 * download button per file (BAI2, camt.053), a form that produces a past banking day's statement,
 * and the intraday report's downloads. Each calls the service its REST route calls.
 */

const BASE = '/dashboard/statements';

/** A file as a download, as the REST route answers it. */
export const sendFile = (c: Context<DashEnv>, file: FileAnswer) =>
  c.body(file.body, 200, {
    'content-type': file.contentType,
    'content-disposition': `attachment; filename="${file.filename}"`,
  });

const download = (href: string, label: string, testId: string) =>
  html`<a class="button small" href="${href}" download data-testid="${testId}">${label}</a>`;

function table(rows: StatementRow[]): Html {
  if (rows.length === 0)
    return html`<p class="muted" data-testid="no-statements">No statements yet: the end of a banking day with activity produces one.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="statements">
<thead><tr><th>Day</th><th>Currency</th><th class="num">Opening ledger</th><th class="num">Credits</th><th class="num">Debits</th><th class="num">Closing ledger</th><th class="num">Closing available</th><th>Files</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr data-testid="statement-row" data-id="${row.id}">
  <td>${row.date}</td>
  <td>${row.currency}</td>
  <td class="num">${money(row.openingLedger, row.currency)}</td>
  <td class="num">${money(row.creditsTotal, row.currency)} <span class="muted small">(${row.creditCount})</span></td>
  <td class="num">${money(row.debitsTotal, row.currency)} <span class="muted small">(${row.debitCount})</span></td>
  <td class="num" data-testid="closing-ledger">${money(row.closingLedger, row.currency)}</td>
  <td class="num">${money(row.closingAvailable, row.currency)}</td>
  <td>${download(`${BASE}/${row.id}/file?format=bai2`, 'BAI2', 'download-bai2')} ${download(`${BASE}/${row.id}/file?format=camt053`, 'camt.053', 'download-camt053')}</td>
</tr>`,
  )}</tbody></table></div>`;
}

const KIND_LABELS = { sent: 'sent (a window)', returns: 'returns and NOCs', received: 'received' } as const;

function achTable(files: AchFileView[]): Html {
  if (files.length === 0)
    return html`<p class="muted" data-testid="no-ach-files">No ACH files yet: an ACH entry goes out in its window's file.</p>`;
  return html`<div class="table-wrap"><table class="list" data-testid="ach-files">
<thead><tr><th>File</th><th>Window or day</th><th>SEC</th><th class="num">Debits</th><th class="num">Credits</th><th></th></tr></thead>
<tbody>${files.map((file) => {
    const totals = nachaTotals(file.file);
    return html`<tr data-testid="ach-file-row" data-id="${file.id}">
  <td>${KIND_LABELS[file.kind]}</td>
  <td>${file.kind === 'sent' ? bankWhen(new Date(file.key)) : file.key}</td>
  <td>${[...new Set(file.file.batches.map((batch) => batch.sec))].join(', ')}</td>
  <td class="num">${money(totals.totalDebit, 'USD')}</td>
  <td class="num">${money(totals.totalCredit, 'USD')}</td>
  <td>${download(`${BASE}/ach/${file.id}`, 'NACHA', 'download-ach')}</td>
</tr>`;
  })}</tbody></table></div>`;
}

const currencyOptions = (selected: string) =>
  CURRENCY_CODES.map(
    (code) => html`<option value="${code}" ${code === selected ? 'selected' : ''}>${code}</option>`,
  );

export function registerStatementPages(app: Hono<DashEnv>): void {
  app.get('/statements', async (c) => {
    const svc = await dashboardContext(c);
    const flash = takeFlash(c);
    const page = await listStatements(svc, { limit: 25, starting_after: cursorOf(c) });
    return shell(
      c,
      { title: 'Statements', active: 'statements', flash },
      html`<section class="card"><h2>Statements</h2>
<p class="muted small">The end of each banking day on your clock (midnight, New York) produces the statement of each currency with activity: balances equal to the ledger's, one line per posting that moved money. Clock now: ${bankWhen(svc.clock.now())}.</p>
${table(page.data)}${olderLink(BASE, page.nextCursor)}</section>
<section class="card"><h2>A past banking day</h2>
<form method="post" action="${BASE}" data-testid="statement-form">
  ${csrfField(c)}
  <div class="row">
    <div><label for="statement-currency">Currency</label><select id="statement-currency" name="currency" data-testid="statement-currency">${currencyOptions(formValue(flash, 'currency') || 'USD')}</select></div>
    <div><label for="statement-date">Banking day</label><input id="statement-date" name="date" placeholder="YYYY-MM-DD" value="${formValue(flash, 'date')}" data-testid="statement-date"></div>
  </div>
  <button type="submit" data-testid="statement-submit">Produce the statement</button>
</form>
<p class="muted small">POST /v1/statements: any past banking day, activity or not.</p></section>
<section class="card"><h2>ACH files</h2>${achTable((await listAchFiles(svc, { limit: 25 })).data)}
<p class="muted small">GET /v1/ach_files: the NACHA file of each window your entries went out in, and the returns, notifications of change and entries received on each banking day.</p></section>
<section class="card"><h2>Intraday report</h2>
<p>${CURRENCY_CODES.map(
        (code) =>
          html`${code}: ${download(`${BASE}/intraday?currency=${code}&format=bai2`, 'BAI2', `intraday-bai2-${code}`)} ${download(`${BASE}/intraday?currency=${code}&format=camt052`, 'camt.052', `intraday-camt052-${code}`)} `,
      )}</p>
<p class="muted small">GET /v1/intraday_report: the banking day so far, up to your clock.</p></section>`,
    );
  });

  app.post('/statements', async (c) => {
    const form = await formOf(c);
    const svc = await dashboardContext(c);
    return submitForm(c, form, BASE, async () => {
      const row = await createStatement(
        svc,
        bodyOfForm(createStatementSchema, form, createStatementFieldCodes),
      );
      return { to: BASE, notice: `Statement of ${row.date} (${row.currency}): ${row.id}.` };
    });
  });

  app.get('/statements/intraday', async (c) => {
    const svc = await dashboardContext(c);
    const query = bodyOfForm(intradayQuery, {
      currency: c.req.query('currency') ?? '',
      format: c.req.query('format') ?? '',
    });
    const file = statementFile(await intradayDocument(svc, query.currency as CurrencyCode), query.format);
    return sendFile(c, file);
  });

  app.get('/iso20022_messages/:id', async (c) => {
    const svc = await dashboardContext(c);
    const message = await messageById(svc, c.req.param('id')); // unknown: the 404 page (app.onError)
    return sendFile(c, {
      body: message.xml,
      contentType: 'application/xml; charset=utf-8',
      filename: `${message.id}.xml`,
    });
  });

  app.get('/statements/ach/:id', async (c) => {
    const svc = await dashboardContext(c);
    const file = await achFileText(svc, c.req.param('id')); // unknown: the 404 page (app.onError)
    return sendFile(c, file);
  });

  app.get('/statements/:id/file', async (c) => {
    const svc = await dashboardContext(c);
    const row = await getStatement(svc, c.req.param('id')); // unknown: the 404 page (app.onError)
    const { format } = bodyOfForm(statementFileQuery, { format: c.req.query('format') ?? '' });
    const file = statementFile(await statementDocument(svc.db, row), format);
    return sendFile(c, file);
  });
}
