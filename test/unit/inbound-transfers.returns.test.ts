/**
 * The receiver's return rules of inbound ACH entries (checkInboundReturn), instant by instant:
 * December 2031 is EST (UTC−5); settlement on Tuesday 2031-12-09 08:30 ET.
 */
import { describe, expect, it } from 'vitest';
import { SandbankError } from '../../src/kernel/errors.ts';
import {
  checkInboundReturn,
  receiverCodesFor,
} from '../../src/modules/inbound-transfers/inbound-transfers.returns.ts';

const SETTLED = new Date('2031-12-09T13:30:00.000Z');
const debit = (secCode: string) => ({ direction: 'debit' as const, secCode, settledAt: SETTLED });
const credit = { direction: 'credit' as const, secCode: 'CCD', settledAt: SETTLED };

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof SandbankError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('checkInboundReturn', () => {
  it('2-banking-day codes: accepted until the opening of business (08:30 ET) of Thursday, the 2nd banking day', () => {
    expect(checkInboundReturn(debit('PPD'), 'R01', new Date('2031-12-11T13:29:59.999Z')).code).toBe('R01');
    const late = refusal(() => checkInboundReturn(debit('PPD'), 'R01', new Date('2031-12-11T13:30:00.000Z')));
    expect(late.code).toBe('return_deadline_passed');
    expect(late.message).toContain('2031-12-11T13:30:00.000Z');
    expect(late.message).toContain('opening of business (08:30 ET) of the 2nd banking day');
  });

  it('60-calendar-day codes: R10 until the opening of business of the banking day after the 60th day', () => {
    // 60 calendar days after 2031-12-09 is Saturday 2032-02-07; the next banking day is Monday 02-09,
    // whose opening of business (08:30 EST) is 13:30Z.
    expect(checkInboundReturn(debit('WEB'), 'R10', new Date('2032-02-09T13:29:00.000Z')).code).toBe('R10');
    expect(
      refusal(() => checkInboundReturn(debit('WEB'), 'R10', new Date('2032-02-09T13:30:00.000Z'))).code,
    ).toBe('return_deadline_passed');
    expect(checkInboundReturn(debit('CCD'), 'R05', new Date('2032-01-20T12:00:00.000Z')).code).toBe('R05');
  });

  it('by direction, SEC code and who may use the code', () => {
    const now = new Date('2031-12-10T15:00:00.000Z');
    expect(checkInboundReturn(credit, 'R23', now).code).toBe('R23');
    expect(checkInboundReturn(credit, 'R02', now).code).toBe('R02');
    expect(checkInboundReturn(debit('CCD'), 'R29', now).code).toBe('R29');
    for (const [entry, code, why] of [
      [credit, 'R01', 'returns debits only'],
      [debit('PPD'), 'R23', 'returns credits only'],
      [debit('CCD'), 'R10', 'applies to PPD and WEB entries only; this entry is CCD'],
      [debit('PPD'), 'R29', 'applies to CCD entries only; this entry is PPD'],
      [debit('WEB'), 'R05', 'applies to CCD entries only; this entry is WEB'],
      [debit('PPD'), 'R06', 'is not a code a receiving bank'],
      [debit('PPD'), 'R13', 'is not a code a receiving bank'],
      [debit('PPD'), 'R33', 'entry class Sandbank does not originate'],
      [debit('PPD'), 'R68', "ODFI's code for dishonoring"],
      [debit('PPD'), 'R00', 'is not a Nacha return code'],
    ] as const) {
      const refused = refusal(() => checkInboundReturn(entry, code, now));
      expect(refused.code, code).toBe(code === 'R00' ? 'parameter_invalid' : 'return_code_not_allowed');
      expect(refused.message, code).toContain(why);
    }
  });
});

describe('receiverCodesFor (the dashboard’s return form)', () => {
  const codes = (entry: { direction: 'credit' | 'debit'; secCode: string }) =>
    receiverCodesFor(entry).map((c) => c.code);

  it('lists the codes of the entry’s direction and class: consumer debits R07, R10, R11; corporate R05, R29', () => {
    const ppd = codes({ direction: 'debit', secCode: 'PPD' });
    const ccd = codes({ direction: 'debit', secCode: 'CCD' });
    const credit = codes({ direction: 'credit', secCode: 'PPD' });
    expect(ppd).toEqual(expect.arrayContaining(['R01', 'R07', 'R10', 'R11']));
    for (const code of ['R05', 'R29', 'R23', 'R06', 'R13', 'R61']) expect(ppd).not.toContain(code);
    expect(ccd).toEqual(expect.arrayContaining(['R01', 'R05', 'R29']));
    for (const code of ['R07', 'R10', 'R11', 'R23']) expect(ccd).not.toContain(code);
    expect(credit).toEqual(expect.arrayContaining(['R02', 'R03', 'R23']));
    for (const code of ['R01', 'R10', 'R29']) expect(credit).not.toContain(code);
  });

  it('says each time frame and which codes need the written statement of unauthorized debit', () => {
    const byCode = new Map(receiverCodesFor({ direction: 'debit', secCode: 'WEB' }).map((c) => [c.code, c]));
    expect(byCode.get('R10')).toMatchObject({
      wsud: true,
      timeFrame: expect.stringContaining('60th calendar day'),
    });
    expect(byCode.get('R11')?.wsud).toBe(true);
    expect(byCode.get('R01')).toMatchObject({ wsud: false, timeFrame: expect.stringContaining('08:30 ET') });
  });
});
