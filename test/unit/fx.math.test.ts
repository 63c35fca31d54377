/**
 * The FX arithmetic and destination checks, pure: property tests over any amount and
 * rate, a table of conversions computed by hand, rates on the clock, IBAN and Japanese accounts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../src/kernel/money.ts';
import {
  FAILING_DESTINATIONS,
  failureOf,
  validateIbanDestination,
  validateJpyDestination,
} from '../../src/modules/fx/fx.destinations.ts';
import { quoteAmounts, sourceFromTarget, targetFromSource } from '../../src/modules/fx/fx.quote-math.ts';
import {
  DEFAULT_FX_RATES,
  type FxTargetCurrency,
  formatRate,
  midRateAt,
  parseFxRatesConfig,
  parseRate,
  parseSpreadConfig,
  RATE_SCALE,
  roundHalfEven,
  sellRate,
} from '../../src/modules/fx/fx.rates.ts';

const targets = fc.constantFrom<FxTargetCurrency>('EUR', 'GBP', 'JPY');
/** Realistic rates with up to 10 decimals: 0.0001 … 1000 target units per USD. */
const rates = fc.bigInt({ min: 1_000_000n, max: 1000n * RATE_SCALE });
const amounts = fc.bigInt({ min: 1n, max: 100_000_000_000n });
const digitsOf = (target: FxTargetCurrency) => (target === 'JPY' ? 0 : 2);
/** Exact real value of cents × rate in target minor units, as a fraction num / den. */
const exact = (cents: bigint, rate: bigint, target: FxTargetCurrency) => ({
  num: cents * rate * 10n ** BigInt(digitsOf(target)),
  den: 100n * RATE_SCALE,
});

/** A spread of 0 to 2% on the rate scale. */
const spreads = fc.bigInt({ min: 0n, max: RATE_SCALE / 50n });
/** Sources up to what one quote may sell: 10,000,000.00 USD. */
const sources = fc.bigInt({ min: 1n, max: 1_000_000_000n });

/** What every quote promises about its locked rate (docs/guide/fx.md). */
function expectLockedRateHolds(
  q: ReturnType<typeof quoteAmounts>,
  mid: bigint,
  target: FxTargetCurrency,
): void {
  // Converting the source at the locked rate, half to even, reproduces the target…
  expect(targetFromSource(q.sourceAmount, q.rate, target)).toBe(q.targetAmount);
  // …the merchant never pays under the quoted rate (source × rate ≥ target, exactly)…
  const atLocked = exact(q.sourceAmount, q.rate, target);
  expect(atLocked.num >= q.targetAmount * atLocked.den).toBe(true);
  // …never gets more than the mid rate, and the fee (the spread inside the source) is never negative.
  expect(q.rate <= mid).toBe(true);
  expect(q.fee >= 0n && q.fee <= q.sourceAmount).toBe(true);
  expect(formatDecimal(q.targetAmount, target).split('.')[1]?.length ?? 0).toBe(digitsOf(target));
}

describe('conversion properties (fast-check)', () => {
  it('a source-fixed quote: the target is the source at the sell rate, half to even (capped at the mid rate); the locked rate reproduces it', () => {
    fc.assert(
      fc.property(sources, rates, spreads, targets, (source, mid, spread, target) => {
        const sell = sellRate(mid, spread);
        const { num, den } = exact(source, sell, target);
        const atMid = exact(source, mid, target);
        // Converts to more than half a unit, worth a whole one at mid (less is refused, tested below).
        fc.pre(num * 2n > den && atMid.num >= atMid.den);
        const q = quoteAmounts({ rate: sell, mid, target, sourceAmount: source });
        expect(q.sourceAmount).toBe(source);
        const halfEven = targetFromSource(source, sell, target);
        if (q.targetAmount === halfEven) {
          // |T − exact| ≤ ½ unit: |2·T·den − 2·num| ≤ den
          const gap = 2n * q.targetAmount * den - 2n * num;
          expect(gap <= den && -gap <= den).toBe(true);
        } else {
          // Capped: half to even would beat the mid rate; the target is what the source is worth at it.
          expect(halfEven * atMid.den > atMid.num).toBe(true);
          expect(q.targetAmount).toBe(atMid.num / atMid.den);
        }
        expectLockedRateHolds(q, mid, target);
      }),
      { numRuns: 3000 },
    );
  });

  it('a target-fixed quote: exactly that target, for the fewest cents at the sell rate; the locked rate reproduces it and is never above the sell rate', () => {
    fc.assert(
      fc.property(amounts, rates, spreads, targets, (wanted, mid, spread, target) => {
        const sell = sellRate(mid, spread);
        fc.pre(sourceFromTarget(wanted, sell, target) <= 1_000_000_000n); // what one quote may sell
        const q = quoteAmounts({ rate: sell, mid, target, targetAmount: wanted });
        expect(q.targetAmount).toBe(wanted);
        const paid = exact(q.sourceAmount, sell, target);
        expect(paid.num >= wanted * paid.den).toBe(true); // enough at the sell rate…
        const lessOne = exact(q.sourceAmount - 1n, sell, target);
        expect(lessOne.num < wanted * lessOne.den).toBe(true); // …and not a cent more than needed
        expect(q.rate <= sell).toBe(true);
        expectLockedRateHolds(q, mid, target);
      }),
      { numRuns: 3000 },
    );
  });

  it('the sell rate is never above the mid rate and at most one unit of the 10th decimal below mid × (1 − spread)', () => {
    fc.assert(
      fc.property(rates, spreads, (mid, spread) => {
        const rate = sellRate(mid, spread);
        expect(rate <= mid).toBe(true);
        expect(mid * (RATE_SCALE - spread) - rate * RATE_SCALE < RATE_SCALE).toBe(true);
      }),
    );
  });

  it('half to even for either sign', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        (n, d) => {
          const r = roundHalfEven(n, d);
          expect(roundHalfEven(-n, d)).toBe(-r);
          const gap = 2n * (r * d - n);
          expect(gap <= d && -gap <= d).toBe(true);
          if (gap === d || gap === -d) expect(r % 2n).toBe(0n);
        },
      ),
    );
  });
});

describe('conversions computed by hand', () => {
  // cents, rate, target → target minor units (half to even).
  it.each([
    [10_000n, '0.92', 'EUR', 9_200n], // 100.00 USD × 0.92 = 92.00
    [100n, '0.925', 'EUR', 92n], // 0.925 EUR → 0.92 (tie, 2 even)
    [100n, '0.935', 'EUR', 94n], // 0.935 EUR → 0.94 (tie, 4 even)
    [100n, '0.9351', 'GBP', 94n], // 0.9351 → 0.94 (above the tie)
    [100n, '0.7849', 'GBP', 78n], // 0.7849 → 0.78
    [100n, '150.5', 'JPY', 150n], // 150.5 yen → 150 (tie, even)
    [300n, '150.5', 'JPY', 452n], // 451.5 yen → 452 (tie, even)
    [500n, '151.5', 'JPY', 758n], // 757.5 yen → 758 (tie, even)
    [700n, '151.5', 'JPY', 1060n], // 1060.5 yen → 1060 (tie, even)
    [1n, '151.5', 'JPY', 2n], // 0.01 USD = 1.515 yen → 2
    [12_345n, '151.4321', 'JPY', 18_694n], // 123.45 × 151.4321 = 18694.292745 → 18694
    [999_999_999n, '0.9234567891', 'EUR', 923_456_788n], // 9,999,999.99 × 0.9234567891 = 9,234,567.881…→ .88
  ] as const)('%s cents at %s → %s %s', (cents, rate, target, expected) => {
    expect(targetFromSource(cents, parseRate(rate), target)).toBe(expected);
  });

  it.each([
    [9_200n, '0.92', 'EUR', 10_000n], // 92.00 EUR at 0.92 = 100.00 USD exactly
    [1n, '0.92', 'EUR', 2n], // 0.01 EUR needs 0.0108… USD → 0.02
    [10_000n, '151.5', 'JPY', 6_601n], // ¥10,000 / 151.5 = 66.0066… → 66.01 USD
    [1_515n, '151.5', 'JPY', 1_000n], // ¥1,515 = 10.00 USD exactly
  ] as const)('buying %s %s minor units at %s costs %s cents', (wanted, rate, target, cents) => {
    expect(sourceFromTarget(wanted, parseRate(rate), target)).toBe(cents);
  });

  it('a target-fixed quote locks the effective rate of its whole cents (¥10,000 at 151.5; 250.00 EUR at 0.9154)', () => {
    // ¥10,000 ÷ 151.5 = 66.0066… USD → 66.01; 10,000 ÷ 66.01 = 151.49219815179518… → up at the 10th decimal.
    const yen = quoteAmounts({
      rate: parseRate('151.5'),
      mid: parseRate('151.5'),
      target: 'JPY',
      targetAmount: 10_000n,
    });
    expect([yen.sourceAmount, formatRate(yen.rate)]).toEqual([6_601n, '151.4921981518']);
    // 250.00 EUR ÷ 0.9154 = 273.1046… USD → 273.11; 250 ÷ 273.11 = 0.91538208048039…
    const eur = quoteAmounts({
      rate: parseRate('0.9154'),
      mid: parseRate('0.92'),
      target: 'EUR',
      targetAmount: 25_000n,
    });
    expect([eur.sourceAmount, formatRate(eur.rate)]).toEqual([27_311n, '0.9153820805']);
    // 250.00 EUR at mid 0.92 is 271.7391… USD → 271.74; the fee is 273.11 − 271.74.
    expect(eur.fee).toBe(137n);
  });

  it('a source-fixed quote rounds half to even at the sell rate, locks the effective rate, and never beats the mid rate', () => {
    // 200.00 USD at 151.558016925 = 30,311.603385 yen → ¥30,312; 30,312 ÷ 200 = 151.56 exactly.
    const up = quoteAmounts({
      rate: parseRate('151.558016925'),
      mid: parseRate('152.319615'),
      target: 'JPY',
      sourceAmount: 20_000n,
    });
    expect([up.targetAmount, formatRate(up.rate)]).toEqual([30_312n, '151.56']);
    // 30,312 yen at mid 152.319615 is 199.0026… USD → 199.00: the fee is 1.00 USD.
    expect(up.fee).toBe(100n);
    // 0.01 USD at sell 150.05 is 1.5005 yen → 2 half to even, but only 1.5081 yen at mid 150.81: ¥1.
    const cent = quoteAmounts({
      rate: parseRate('150.05'),
      mid: parseRate('150.81'),
      target: 'JPY',
      sourceAmount: 1n,
    });
    expect([cent.targetAmount, formatRate(cent.rate), cent.fee]).toEqual([1n, '100', 0n]);
  });

  it('the fee is the spread inside the source amount: 100.00 USD at mid 0.92 less 0.5%', () => {
    const mid = parseRate('0.92');
    const rate = sellRate(mid, parseSpreadConfig('0.5'));
    expect(formatRate(rate)).toBe('0.9154');
    // 100.00 USD → 91.54 EUR; 91.54 EUR at mid is 99.5000 USD → fee 0.50 USD.
    expect(quoteAmounts({ rate, mid, target: 'EUR', sourceAmount: 10_000n })).toEqual({
      rate,
      sourceAmount: 10_000n,
      targetAmount: 9_154n,
      fee: 50n,
    });
  });

  it('an amount that converts to nothing is refused', () => {
    expect(() =>
      quoteAmounts({ rate: parseRate('0.004'), mid: parseRate('0.004'), target: 'JPY', sourceAmount: 1n }),
    ).toThrow(/converts to nothing/);
  });
});

describe('rates on the clock', () => {
  const at = (iso: string) => new Date(iso);

  it('the same instant gives the same rate; the same hour too; adjacent hours always differ, by at most 0.15%; within ±0.85%', () => {
    for (const currency of ['EUR', 'GBP', 'JPY'] as const) {
      const base = DEFAULT_FX_RATES[currency];
      expect(midRateAt(base, currency, at('2031-12-03T15:00:00Z'))).toBe(
        midRateAt(base, currency, at('2031-12-03T15:59:59.999Z')),
      );
      // 400 days of hours, checked in plain code and asserted once: an expect() per hour is most of
      // the test's time, and on a loaded machine it ran past the test's timeout.
      const wrong: string[] = [];
      let previous = midRateAt(base, currency, at('2031-01-01T00:00:00Z'));
      for (let hour = 1; hour < 24 * 400; hour++) {
        const rate = midRateAt(base, currency, new Date(Date.UTC(2031, 0, 1) + hour * 3_600_000));
        const step = rate > previous ? rate - previous : previous - rate;
        if (rate === previous) wrong.push(`${currency} hour ${hour}: same rate as the hour before`);
        if (step * 10_000n > base * 15n) wrong.push(`${currency} hour ${hour}: moved by more than 0.15%`);
        if (rate * 10_000n < base * 9_915n || rate * 10_000n > base * 10_085n)
          wrong.push(`${currency} hour ${hour}: ${rate} outside ±0.85% of ${base}`);
        previous = rate;
      }
      expect(wrong).toEqual([]);
    }
  });

  it('FX_RATES and FX_SPREAD are read exactly and refused when malformed', () => {
    expect(parseFxRatesConfig('JPY=149.25, EUR = 0.9')).toEqual({
      EUR: parseRate('0.9'),
      GBP: DEFAULT_FX_RATES.GBP,
      JPY: parseRate('149.25'),
    });
    expect(() => parseFxRatesConfig('CHF=0.88')).toThrow(/EUR, GBP, JPY/);
    expect(() => parseFxRatesConfig('EUR=-1')).toThrow(/decimal rate/);
    expect(() => parseFxRatesConfig('EUR=0')).toThrow(/greater than zero/);
    expect(() => parseFxRatesConfig('EUR=0.0000000001')).toThrow(/outside 0.0001 to 1000000/);
    expect(() => parseFxRatesConfig('JPY=999999999999')).toThrow(/outside 0.0001 to 1000000/);
    expect(parseSpreadConfig('0')).toBe(0n);
    expect(parseSpreadConfig('0.00')).toBe(0n);
    expect(formatRate(parseSpreadConfig('1.25'))).toBe('0.0125');
    expect(() => parseSpreadConfig('50')).toThrow(/below 50/);
    expect(formatRate(parseRate('151.5000'))).toBe('151.5');
    expect(formatRate(RATE_SCALE)).toBe('1');
  });
});

/** ISO 13616 mod 97, written here as the oracle: letters A=10 … Z=35, rearranged, remainder 1. */
function mod97Valid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

describe('destinations abroad', () => {
  const VALID = {
    DE: 'DE89370400440532013000',
    FR: 'FR1420041010050500013M02606',
    GB: 'GB29NWBK60161331926819',
    NL: 'NL91ABNA0417164300',
  } as const;

  it.each(Object.entries(VALID))(
    '%s: accepted (spaces and case ignored); a one-digit typo is refused',
    (country, iban) => {
      expect(mod97Valid(iban)).toBe(true);
      const currency = country === 'GB' ? 'GBP' : 'EUR';
      const spaced = iban.replace(/(.{4})/g, '$1 ').toLowerCase();
      expect(validateIbanDestination({ name: 'Beneficiary', iban: spaced }, currency)).toEqual({
        name: 'Beneficiary',
        iban,
      });
      // Change one digit of the account part: the check digits no longer match.
      const at = iban.length - 2;
      const typo = iban.slice(0, at) + String((Number(iban[at]) + 1) % 10) + iban.slice(at + 1);
      expect(mod97Valid(typo)).toBe(false);
      expect(() => validateIbanDestination({ name: 'Beneficiary', iban: typo }, currency)).toThrow(/mod-97/);
    },
  );

  it.each([
    [{ name: 'X', iban: 'DE8937040044053201300' }, 'EUR', /DE IBAN has 22 characters; this one has 21/],
    [{ name: 'X', iban: 'ZZ89370400440532013000' }, 'EUR', /known country/],
    [{ name: 'X', iban: VALID.DE }, 'GBP', /UK \(GB\) IBAN/],
    [{ name: 'X', iban: 'BR1800360305000010009795493C1' }, 'EUR', /SEPA/],
    [{ name: ' ', iban: VALID.DE }, 'EUR', /name is required/],
    [{ name: 'X', iban: VALID.DE, bic: 'COBADEFFXXX' }, 'EUR', /only name, iban/],
    [{ name: 'X' }, 'EUR', /needs an iban/],
  ] as const)('%j as %s is refused: %s', (destination, currency, message) => {
    expect(() => validateIbanDestination(destination, currency)).toThrow(message);
  });

  it('Japanese accounts: 4, 3 and 7 digits as strings; the holder in katakana or Latin letters', () => {
    const ok = { name: 'ﾔﾏﾀﾞ ﾀﾛｳ', bank_code: '0001', branch_code: '001', account_number: '0012345' };
    expect(validateJpyDestination(ok)).toEqual({
      name: 'ﾔﾏﾀﾞ ﾀﾛｳ',
      bankCode: '0001',
      branchCode: '001',
      accountNumber: '0012345',
    });
    expect(validateJpyDestination({ ...ok, name: 'ヤマダ タロウ' }).name).toBe('ヤマダ タロウ');
    expect(validateJpyDestination({ ...ok, name: 'Yamada Taro' }).name).toBe('Yamada Taro');
    for (const [field, value] of [
      ['bank_code', '001'],
      ['bank_code', 1],
      ['branch_code', '1234'],
      ['account_number', '123456'],
      ['account_number', '12345678'],
      ['name', '山田太郎'],
    ] as const) {
      expect(() => validateJpyDestination({ ...ok, [field]: value })).toThrow(
        expect.objectContaining({ code: 'destination_invalid', param: `destination.${field}` }),
      );
    }
  });

  it('the magic destinations are valid accounts and are the ones that fail', () => {
    expect(mod97Valid(FAILING_DESTINATIONS.EUR) && mod97Valid(FAILING_DESTINATIONS.GBP)).toBe(true);
    const eur = validateIbanDestination({ name: 'X', iban: FAILING_DESTINATIONS.EUR }, 'EUR');
    const gbp = validateIbanDestination({ name: 'X', iban: FAILING_DESTINATIONS.GBP }, 'GBP');
    const jpy = validateJpyDestination({
      name: 'X',
      bank_code: '0001',
      branch_code: '001',
      account_number: '9999999',
    });
    for (const failing of [eur, gbp, jpy]) expect(failureOf(failing)).toEqual({ code: 'AC04' });
    expect(failureOf(validateIbanDestination({ name: 'X', iban: VALID.DE }, 'EUR'))).toBeNull();
  });
});
