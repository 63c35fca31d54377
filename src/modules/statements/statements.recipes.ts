/** The trigger recipe of statements (docs/guide/trigger.md): a top-up, then the end of the banking day. */
import { and, eq } from 'drizzle-orm';
import type { CurrencyCode } from '../../kernel/currency.ts';
import { topUp } from '../ledger/ledger.recipes.ts';
import { topUpFieldCodes, topUpSchema } from '../ledger/ledger.schema.ts';
import { checked, type Recipe, recipe } from '../recipe.ts';
import { statementDayOf, statementPeriod } from './statements.period.ts';
import { statements } from './statements.table.ts';

export const statementRecipes: Recipe[] = [
  recipe(
    'statement.created',
    "Tops up the balance, then advances the clock past the end of the banking day (midnight, New York, after the next banking day's start if today is not one): the day's statement is produced.",
    ['amount', 'currency'],
    (set) => {
      const currency = set.currency ?? 'USD';
      checked(topUpSchema, { amount: set.amount ?? '25.00', currency }, topUpFieldCodes);
      return async (d) => {
        await topUp(d, set.amount ?? '25.00', currency);
        const date = statementDayOf(d.now());
        const end = statementPeriod(date).end;
        await d.advance(Math.ceil((end.getTime() - d.now().getTime()) / 1000) + 1);
        const ctx = d.context();
        const [row] = await ctx.db
          .select({ id: statements.id })
          .from(statements)
          .where(
            and(
              eq(statements.merchantId, ctx.merchant.id),
              eq(statements.currency, currency as CurrencyCode),
              eq(statements.date, date),
            ),
          );
        if (!row) throw new Error(`no statement of ${date} after the end of the day`);
        return row.id;
      };
    },
    true,
  ),
];
