import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import testPans from '../../reference/test_pans.json' with { type: 'json' };
import { SandbankError } from '../../src/kernel/errors.ts';
import { detectBrand, luhnCheckDigit, luhnValid } from '../../src/modules/cards/card-numbers.ts';
import { type CardInput, type ValidCard, validateCard } from '../../src/modules/cards/card-validation.ts';
import { refundBehavior, TEST_CARDS } from '../../src/modules/cards/magic-cards.ts';
import { decideAfterChallenge, decideAuthorization } from '../../src/modules/cards/network.ts';
import { networkResponseDescription } from '../../src/modules/cards/network-responses.ts';

const NOW = new Date('2026-03-15T12:00:00.000Z');

const input = (overrides: Partial<Record<keyof CardInput, unknown>> = {}): CardInput => {
  const base: Record<string, unknown> = {
    number: '4242424242424242',
    exp_month: 12,
    exp_year: 2030,
    cvc: '123',
    ...overrides,
  };
  return base as unknown as CardInput;
};

const card = (number: string, expMonth = 12, expYear = 2030): ValidCard =>
  validateCard(
    input({ number, exp_month: expMonth, exp_year: expYear, cvc: number.length === 15 ? '1234' : '123' }),
  );

function caught(fn: () => unknown): SandbankError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SandbankError) return error;
    throw error;
  }
  throw new Error('expected a SandbankError');
}

function expectError(
  overrides: Partial<Record<keyof CardInput, unknown>>,
  code: string,
  param: string,
): void {
  const error = caught(() => validateCard(input(overrides)));
  expect({ code: error.code, param: error.param, status: error.status }).toEqual({
    code,
    param,
    status: 400,
  });
}

describe('reference/test_pans.json oracle', () => {
  const supported = new Set(['visa', 'mastercard', 'amex']);

  it.each(testPans.pans.map((row) => [row.pan, row.luhn_valid] as const))(
    'luhnValid(%s) is %s',
    (pan, valid) => {
      expect(luhnValid(pan)).toBe(valid);
    },
  );

  it.each(
    testPans.pans
      .filter((row) => row.luhn_valid && supported.has(row.brand))
      .map((row) => [row.pan, row.brand] as const),
  )('detectBrand(%s) is %s', (pan, brand) => {
    expect(detectBrand(pan)).toBe(brand);
  });

  it('detects no supported brand for the Discover pan', () => {
    expect(detectBrand('6011111111111117')).toBe('unknown');
  });
});

describe('luhn and brand detection', () => {
  it('rejects non-digit and empty strings', () => {
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4242 4242 4242 4242')).toBe(false);
    expect(detectBrand('abc')).toBe('unknown');
  });

  it('uses the Mastercard 2-series range boundaries', () => {
    expect(detectBrand('2221000000000009')).toBe('mastercard');
    expect(detectBrand('2720990000000000')).toBe('mastercard');
    expect(detectBrand('2220990000000000')).toBe('unknown');
    expect(detectBrand('2721000000000000')).toBe('unknown');
    expect(detectBrand('5100000000000000')).toBe('mastercard');
    expect(detectBrand('5600000000000000')).toBe('unknown');
    expect(detectBrand('340000000000000')).toBe('amex');
    expect(detectBrand('350000000000000')).toBe('unknown');
  });

  it('property: prefix-4 bodies with a computed check digit are valid Visa numbers; one changed digit breaks Luhn', () => {
    const body = fc
      .array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 })
      .map((d) => `4${d.join('')}`);
    fc.assert(
      fc.property(
        body,
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 1, max: 9 }),
        (prefixBody, position, delta) => {
          const pan = prefixBody + luhnCheckDigit(prefixBody);
          expect(pan).toHaveLength(16);
          expect(luhnValid(pan)).toBe(true);
          expect(detectBrand(pan)).toBe('visa');
          const changed = String((Number(pan[position]) + delta) % 10);
          const mutated = pan.slice(0, position) + changed + pan.slice(position + 1);
          expect(luhnValid(mutated)).toBe(false);
        },
      ),
    );
  });
});

describe('validateCard', () => {
  it('normalises a valid card', () => {
    expect(validateCard(input({ name: '  Ada Lovelace ' }))).toEqual({
      number: '4242424242424242',
      brand: 'visa',
      last4: '4242',
      expMonth: 12,
      expYear: 2030,
      cvc: '123',
      name: 'Ada Lovelace',
    });
  });

  it('accepts spaces and dashes in the number without mutating the input', () => {
    const raw = input({ number: '4242 4242-4242 4242' });
    const snapshot = structuredClone(raw);
    const valid = validateCard(raw);
    expect(valid.number).toBe('4242424242424242');
    expect(valid.name).toBeNull();
    expect(raw).toEqual(snapshot);
  });

  it('accepts Amex with a 4-digit CVC and Mastercard 2-series', () => {
    expect(validateCard(input({ number: '378282246310005', cvc: '1234' })).brand).toBe('amex');
    expect(validateCard(input({ number: '2223003122003222' })).brand).toBe('mastercard');
  });

  it('accepts a 19-digit Visa number', () => {
    const body = '400000000000000000';
    expect(validateCard(input({ number: body + luhnCheckDigit(body) })).number).toHaveLength(19);
  });

  it('accepts digit-string months and 2-digit years', () => {
    const valid = validateCard(input({ exp_month: '03', exp_year: '29' }));
    expect([valid.expMonth, valid.expYear]).toEqual([3, 2029]);
    expect(validateCard(input({ exp_year: 31 })).expYear).toBe(2031);
    expect(validateCard(input({ exp_year: '2031' })).expYear).toBe(2031);
  });

  it('accepts a past expiry (that is a decline, not a validation error)', () => {
    expect(validateCard(input({ exp_month: 1, exp_year: 2001 })).expYear).toBe(2001);
  });

  it.each([
    ['bad Luhn', { number: '4242424242424241' }, 'invalid_card_number', 'card.number'],
    ['letters', { number: '4242x42424242424' }, 'invalid_card_number', 'card.number'],
    ['dots', { number: '4242.4242.4242.4242' }, 'invalid_card_number', 'card.number'],
    ['empty number', { number: '' }, 'invalid_card_number', 'card.number'],
    ['13-digit Visa (unverified length)', { number: '4222222222222' }, 'invalid_card_number', 'card.number'],
    ['Luhn-valid but too short', { number: '42' }, 'invalid_card_number', 'card.number'],
    ['Discover', { number: '6011111111111117' }, 'card_brand_unsupported', 'card.number'],
    ['missing number', { number: undefined }, 'parameter_missing', 'card.number'],
    ['numeric number', { number: 4242424242424242 }, 'parameter_invalid', 'card.number'],
    ['3-digit CVC on Amex', { number: '378282246310005', cvc: '123' }, 'invalid_cvc', 'card.cvc'],
    ['4-digit CVC on Visa', { cvc: '1234' }, 'invalid_cvc', 'card.cvc'],
    ['non-digit CVC', { cvc: '12a' }, 'invalid_cvc', 'card.cvc'],
    ['missing CVC', { cvc: undefined }, 'parameter_missing', 'card.cvc'],
    ['numeric CVC', { cvc: 123 }, 'parameter_invalid', 'card.cvc'],
    ['month 0', { exp_month: 0 }, 'invalid_expiry', 'card.exp_month'],
    ['month 13', { exp_month: 13 }, 'invalid_expiry', 'card.exp_month'],
    ['month "13"', { exp_month: '13' }, 'invalid_expiry', 'card.exp_month'],
    ['fractional month', { exp_month: 1.5 }, 'invalid_expiry', 'card.exp_month'],
    ['month "1x"', { exp_month: '1x' }, 'invalid_expiry', 'card.exp_month'],
    ['year 1999', { exp_year: 1999 }, 'invalid_expiry', 'card.exp_year'],
    ['year 2100', { exp_year: 2100 }, 'invalid_expiry', 'card.exp_year'],
    ['3-digit year string', { exp_year: '203' }, 'invalid_expiry', 'card.exp_year'],
    ['negative year', { exp_year: -1 }, 'invalid_expiry', 'card.exp_year'],
    ['non-string name', { name: 42 }, 'parameter_invalid', 'card.name'],
  ] as const)('%s → %s', (_label, overrides, code, param) => {
    expectError(overrides, code, param);
  });
});

describe('decideAuthorization', () => {
  it.each(['4242424242424242', '5555555555554444', '2223003122003222', '378282246310005'])(
    '%s is approved',
    (number) => {
      expect(decideAuthorization(card(number), NOW)).toEqual({
        outcome: 'approved',
        networkResponseCode: '00',
      });
    },
  );

  it.each([
    ['4000000000000002', 'generic_decline', '05'],
    ['4000000000009995', 'insufficient_funds', '51'],
    ['4000000000009987', 'lost_card', '41'],
    ['4000000000009979', 'stolen_card', '43'],
    ['4000000000000069', 'expired_card', '54'],
    ['4000000000000127', 'incorrect_cvc', 'N7'],
    ['4000000000000119', 'processing_error', '96'],
    ['4100000000000019', 'fraudulent', '59'],
  ])('%s is declined %s (%s)', (number, declineCode, networkResponseCode) => {
    const decision = decideAuthorization(card(number), NOW);
    expect(decision).toMatchObject({ outcome: 'declined', declineCode, networkResponseCode });
    if (decision.outcome !== 'declined') throw new Error('unreachable');
    expect(decision.message).toMatch(/^[A-Z3].{5,80}\.$/);
  });

  it.each(['4000002500003155', '4000000000003220', '4000008400001629'])('%s needs a challenge', (number) => {
    expect(decideAuthorization(card(number), NOW)).toEqual({ outcome: 'challenge' });
  });

  it.each(['4000000000007726', '4000000000005126', '4012888888881881', '5105105105105100'])(
    '%s is approved',
    (number) => {
      expect(decideAuthorization(card(number), NOW).outcome).toBe('approved');
    },
  );

  it('uses network codes the ISO 8583 reference describes (N7 is Visa-specific)', () => {
    expect(networkResponseDescription('51')).toMatch(/insufficient funds/i);
    expect(networkResponseDescription('54')).toBe('Expired card');
    expect(networkResponseDescription('N7')).toBeNull();
    for (const code of ['00', '05', '41', '43', '51', '54', '59', '96']) {
      expect(networkResponseDescription(code)).not.toBeNull();
    }
  });

  describe('expiry boundary (UTC)', () => {
    const march2026 = card('4242424242424242', 3, 2026);

    it('is valid through the last millisecond of the expiry month', () => {
      expect(decideAuthorization(march2026, new Date('2026-03-31T00:00:00.000Z')).outcome).toBe('approved');
      expect(decideAuthorization(march2026, new Date('2026-03-31T23:59:59.999Z')).outcome).toBe('approved');
    });

    it('is expired on the first day of the next month', () => {
      expect(decideAuthorization(march2026, new Date('2026-04-01T00:00:00.000Z'))).toMatchObject({
        outcome: 'declined',
        declineCode: 'expired_card',
        networkResponseCode: '54',
      });
    });

    it('rolls a December expiry into January of the next year', () => {
      const dec = card('4242424242424242', 12, 2026);
      expect(decideAuthorization(dec, new Date('2026-12-31T23:59:59.999Z')).outcome).toBe('approved');
      expect(decideAuthorization(dec, new Date('2027-01-01T00:00:00.000Z')).outcome).toBe('declined');
    });

    it('checks expiry before the magic numbers and the challenge', () => {
      const expired = new Date('2031-01-01T00:00:00.000Z');
      for (const number of ['4000000000009995', '4000002500003155']) {
        expect(decideAuthorization(card(number), expired)).toMatchObject({ declineCode: 'expired_card' });
      }
    });

    it('treats a 2-digit year as 20YY', () => {
      const twoDigit = validateCard(input({ exp_month: '03', exp_year: '26' }));
      expect(decideAuthorization(twoDigit, new Date('2026-03-31T23:59:59.999Z')).outcome).toBe('approved');
      expect(decideAuthorization(twoDigit, new Date('2026-04-01T00:00:00.000Z')).outcome).toBe('declined');
    });
  });
});

describe('decideAfterChallenge', () => {
  const failed = {
    outcome: 'declined',
    declineCode: 'authentication_failed',
    networkResponseCode: null,
    message: '3-D Secure authentication failed.',
  };

  it.each(['4000002500003155', '4000000000003220', '4000008400001629'])(
    '%s fails when the challenge fails',
    (number) => {
      expect(decideAfterChallenge(card(number), 'fail', NOW)).toEqual(failed);
    },
  );

  it.each(['4000002500003155', '4000000000003220'])(
    '%s is approved after a successful challenge',
    (number) => {
      expect(decideAfterChallenge(card(number), 'succeed', NOW)).toEqual({
        outcome: 'approved',
        networkResponseCode: '00',
      });
    },
  );

  it('4000008400001629 is declined generic_decline (05) after a successful challenge', () => {
    expect(decideAfterChallenge(card('4000008400001629'), 'succeed', NOW)).toMatchObject({
      outcome: 'declined',
      declineCode: 'generic_decline',
      networkResponseCode: '05',
    });
  });

  it('applies the expiry check first', () => {
    const expired = new Date('2031-01-01T00:00:00.000Z');
    for (const outcome of ['succeed', 'fail'] as const) {
      expect(decideAfterChallenge(card('4000002500003155'), outcome, expired)).toMatchObject({
        declineCode: 'expired_card',
        networkResponseCode: '54',
      });
    }
  });
});

describe('refundBehavior', () => {
  it.each([
    ['4000000000007726', 'pending_then_succeeds'],
    ['4000000000005126', 'fails'],
    ['4242424242424242', 'succeeds'],
    ['4000000000009995', 'succeeds'],
    ['5105105105105100', 'succeeds'],
  ])('%s → %s', (number, behavior) => {
    expect(refundBehavior({ number })).toBe(behavior);
  });
});

describe('TEST_CARDS', () => {
  const magicNumbers = [
    '4242424242424242',
    '5555555555554444',
    '2223003122003222',
    '378282246310005',
    '4000000000000002',
    '4000000000009995',
    '4000000000009987',
    '4000000000009979',
    '4000000000000069',
    '4000000000000127',
    '4000000000000119',
    '4100000000000019',
    '4000002500003155',
    '4000000000003220',
    '4000008400001629',
    '4000000000007726',
    '4000000000005126',
    '4000000000000259',
    '4000000000002685',
    '4000000000001976',
    '4000000404000079',
    '4000000000005423',
  ];

  it('lists every magic card in table order', () => {
    expect(TEST_CARDS.map((testCard) => testCard.number)).toEqual(magicNumbers);
  });

  it('has distinct labels and cards that validate with their own CVC', () => {
    expect(new Set(TEST_CARDS.map((testCard) => testCard.label)).size).toBe(TEST_CARDS.length);
    for (const testCard of TEST_CARDS) {
      const valid = validateCard(input({ number: testCard.number, cvc: testCard.cvc }));
      expect(valid.brand).toBe(testCard.brand);
    }
    expect(TEST_CARDS[0]?.label).toBe('Visa — succeeds');
    expect(TEST_CARDS.find((testCard) => testCard.number === '4000000000009995')?.label).toBe(
      'Declined: insufficient funds',
    );
    expect(TEST_CARDS.find((testCard) => testCard.number === '4000002500003155')?.label).toBe(
      '3-D Secure challenge',
    );
  });

  it('is frozen', () => {
    expect(Object.isFrozen(TEST_CARDS)).toBe(true);
  });
});
