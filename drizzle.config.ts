/**
 * drizzle-kit's configuration (`npm run db:generate`; drizzle-kit is installed on demand in tools/).
 * Every table file: the infrastructure's (src/db: events, scheduled jobs) and each module's.
 */
export default {
  dialect: 'postgresql',
  schema: ['./src/db/*.table.ts', './src/modules/*/*.table.ts'],
  out: './migrations',
};
