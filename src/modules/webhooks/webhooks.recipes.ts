/** The trigger recipe of webhook.test (docs/guide/trigger.md). */
import { SandbankError } from '../../kernel/errors.ts';
import { type Recipe, type RecipeDriver, recipe } from '../recipe.ts';
import { listEndpoints, sendTestEvent } from './webhooks.service.ts';

/** POST /v1/webhook_endpoints/{id}/test: to `endpoint`, or the merchant's newest endpoint. */
async function sendTest(d: RecipeDriver, endpoint: string | undefined): Promise<string> {
  const ctx = d.context();
  const id = endpoint ?? (await listEndpoints(ctx, { limit: 1 })).data[0]?.id;
  if (!id)
    throw new SandbankError('parameter_missing', {
      param: 'set.endpoint',
      message:
        'webhook.test is sent to a webhook endpoint and this merchant has none: create one (POST /v1/webhook_endpoints) or set endpoint=we_….',
    });
  return sendTestEvent(ctx, id);
}

export const webhookRecipes: Recipe[] = [
  recipe(
    'webhook.test',
    "Sends a webhook.test event to an endpoint (endpoint, default the merchant's newest): the merchant needs one.",
    ['endpoint'],
    (set) => async (d) => sendTest(d, set.endpoint),
  ),
];
