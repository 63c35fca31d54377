import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // Every table file: the infrastructure's (src/db: events, scheduled jobs) and each module's.
  schema: ['./src/db/*.table.ts', './src/modules/*/*.table.ts'],
  out: './migrations',
});
