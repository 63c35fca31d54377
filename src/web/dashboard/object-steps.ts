import type { Hono } from 'hono';
import { submitForm } from './form-submit.ts';
import { type DashEnv, dashboardContext, formOf } from './session.ts';

type Service = Awaited<ReturnType<typeof dashboardContext>>;

/**
 * The POST routes of an object page's buttons and small forms: `POST <base>/:id/<step>` runs the
 * step's service call with the form, then goes back to the object's page with a notice (or the
 * refusal as the form's error, the form kept).
 */
export function objectStepRoutes<Row>(
  app: Hono<DashEnv>,
  base: string,
  notice: (row: Row) => string,
  steps: Record<string, (svc: Service, id: string, form: Record<string, string>) => Promise<Row>>,
): void {
  for (const [step, run] of Object.entries(steps))
    app.post(`${base}/:id/${step}`, async (c) => {
      const form = await formOf(c);
      const svc = await dashboardContext(c);
      const back = `/dashboard${base}/${encodeURIComponent(c.req.param('id'))}`;
      return submitForm(c, form, back, async () => ({
        to: back,
        notice: notice(await run(svc, c.req.param('id'), form)),
      }));
    });
}
