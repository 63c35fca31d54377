import { GraphQLError, Kind } from 'graphql';
import type { CurrencyCode } from '../kernel/currency.ts';
import { formatDecimal } from '../kernel/money.ts';
import { builder } from './builder.ts';
import { describedEnum } from './enums.ts';

builder.scalarType('Decimal', {
  description:
    'An exact decimal amount in major units, as a string with the currency\'s minor digits ("100.50"; "1000" for JPY). Inputs accept a string or a number.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value === 'string' || typeof value === 'number') return value;
    throw new GraphQLError('Decimal must be a string or a number.');
  },
  parseLiteral: (node) => {
    if (node.kind === Kind.STRING || node.kind === Kind.INT || node.kind === Kind.FLOAT) return node.value;
    throw new GraphQLError('Decimal must be a string or a number.');
  },
});

builder.scalarType('DateTime', {
  description: 'ISO 8601 UTC time with milliseconds.',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 time.');
    return date;
  },
});

builder.scalarType('JSONObject', {
  description: 'A JSON object (metadata: string keys and string values).',
  serialize: (value) => value,
  parseValue: (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new GraphQLError('Expected a JSON object.');
    return value as Record<string, string>;
  },
});

export const CurrencyCodeEnum = describedEnum(
  'CurrencyCode',
  'The currencies of the sandbox (ISO 4217): USD on every rail, EUR, GBP and JPY as balances and FX targets.',
  {
    USD: 'US dollar (2 minor digits).',
    EUR: 'Euro (2 minor digits).',
    GBP: 'Pound sterling (2 minor digits).',
    JPY: 'Japanese yen (no minor digits).',
  } satisfies Record<CurrencyCode, string>,
);

export interface MoneyValue {
  amount: bigint;
  currency: CurrencyCode;
}

export const MoneyRef = builder.objectRef<MoneyValue>('Money').implement({
  description: 'An amount of money: an exact decimal and its currency.',
  fields: (t) => ({
    amount: t.field({
      type: 'Decimal',
      description: "The amount in major units, with the currency's minor digits.",
      resolve: (money) => formatDecimal(money.amount, money.currency),
    }),
    currency: t.expose('currency', { type: CurrencyCodeEnum, description: 'The currency of the amount.' }),
    minorUnits: t.string({
      description: 'The amount as an integer count of minor units (cents), as a string.',
      resolve: (money) => money.amount.toString(),
    }),
  }),
});
