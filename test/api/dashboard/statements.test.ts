/**
 * Statements in the dashboard, in-process: the page lists the statements the end of a banking day
 * produced, each file's download button serves the file REST serves, the form produces a past
 * day's statement, and the intraday report downloads. A refusal comes back as the form's error.
 */
import { describe, expect, it } from 'vitest';
import { dashboardTestApp, signedIn } from '../../support/dashboard.ts';

const app = dashboardTestApp();

describe('statements in the dashboard', () => {
  it('lists, downloads, produces a past day and refuses a future one', async () => {
    const m = await app().merchant('Dashboard statements');
    expect((await app().post(m, '/v1/clock/freeze')).status).toBe(200);
    await app().post(m, '/v1/clock/advance', { to: '2031-03-04T15:00:00Z' });
    await app().post(m, '/v1/simulate/balance/top_up', { amount: '75.00', currency: 'USD' });
    await app().post(m, '/v1/clock/advance', { to: '2031-03-05T15:00:00Z' });
    const browser = await signedIn(app, m);
    const list = await browser.get('/dashboard/statements');
    expect(list.status).toBe(200);
    const id = /data-testid="statement-row" data-id="(stmt_\w+)"/.exec(list.html)?.[1] as string;
    expect(id).toMatch(/^stmt_/);
    expect(list.html).toMatch(/data-testid="closing-ledger">[^<]*75\.00/);
    for (const format of ['bai2', 'camt053']) {
      expect(list.html).toContain(`/dashboard/statements/${id}/file?format=${format}`);
      const file = await browser.get(`/dashboard/statements/${id}/file?format=${format}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toContain(id);
      expect(file.html).toBe((await app().get(m, `/v1/statements/${id}/file?format=${format}`)).text);
    }
    const intraday = await browser.get('/dashboard/statements/intraday?currency=USD&format=bai2');
    expect(intraday.status).toBe(200);
    expect(intraday.html).toMatch(/^01,110000013,/);

    const produced = await browser.post('/dashboard/statements', { currency: 'USD', date: '2031-03-03' });
    expect(produced.status).toBe(303);
    const dates = ((await app().get(m, '/v1/statements')).body.data as { date: string }[]).map((s) => s.date);
    expect(dates.sort()).toEqual(['2031-03-03', '2031-03-04']);

    const refused = await browser.post('/dashboard/statements', { currency: 'USD', date: '2031-03-05' });
    expect(refused.status).toBe(303);
    const page = await browser.get(refused.location ?? '/dashboard/statements');
    expect(page.html).toContain('is ready at the end of that banking day');
    expect(((await app().get(m, '/v1/statements')).body.data as unknown[]).length).toBe(2);

    // An ACH credit goes out in the next window: its file is listed and downloads as REST serves it.
    await app().post(m, '/v1/transfers', {
      rail: 'ach',
      direction: 'credit',
      amount: '5.00',
      currency: 'USD',
      counterparty: { name: 'Dash Payee', routing_number: '021000021', account_number: '000123456789' },
    });
    await app().post(m, '/v1/clock/advance', { seconds: 86_400 });
    const withAch = await browser.get('/dashboard/statements');
    const achId = /data-testid="ach-file-row" data-id="(achf_sent_\w+)"/.exec(withAch.html)?.[1] as string;
    expect(achId).toMatch(/^achf_sent_/);
    const ach = await browser.get(`/dashboard/statements/ach/${achId}`);
    expect(ach.html).toBe((await app().get(m, `/v1/ach_files/${achId}/file`)).text);
  });
});

describe('ISO 20022 messages in the dashboard', () => {
  it("an RTP transfer's page lists its messages, each downloading the XML REST serves", async () => {
    const m = await app().merchant('Dashboard ISO 20022');
    await app().post(m, '/v1/simulate/balance/top_up', { amount: '50.00', currency: 'USD' });
    const transfer = await app().post(m, '/v1/transfers', {
      rail: 'rtp',
      direction: 'credit',
      amount: '5.00',
      currency: 'USD',
      counterparty: { name: 'Dash Payee', routing_number: '021000021', account_number: '000123456789' },
    });
    expect(transfer.status, transfer.text).toBe(200);
    await app().post(m, '/v1/clock/advance', { seconds: 5 });
    const browser = await signedIn(app, m);
    const page = await browser.get(`/dashboard/transactions/${transfer.body.id}`);
    expect(page.status).toBe(200);
    expect(page.html.match(/data-testid="iso20022-message"/g)).toHaveLength(2);
    const id = `${transfer.body.id}.pacs.008`;
    expect(page.html).toContain(`/dashboard/iso20022_messages/${id}`);
    const xml = await browser.get(`/dashboard/iso20022_messages/${id}`);
    expect(xml.html).toBe((await app().get(m, `/v1/iso20022_messages/${id}/file`)).text);
  });
});
