import { existsSync, readFileSync } from 'node:fs';
import { loadConfig } from './config.ts';
import { CLI_USER_AGENT } from './user-agent.ts';

/**
 * The CLI's commands that talk to the running server over its API with the merchant's secret key:
 * `reset`, `fixtures apply` and `trigger` (src/cli.ts parses the command line and dispatches here).
 */

/** The parsed options of the command line (node:util parseArgs's values). */
export type CliValues = Record<string, string | boolean | string[] | undefined>;

/** The merchant's secret key (--key or SANDBANK_SECRET_KEY) and the server's URL (--api or PUBLIC_URL). */
export function serverOf(command: string, values: CliValues): { key: string; api: string } {
  const key = typeof values.key === 'string' ? values.key : process.env.SANDBANK_SECRET_KEY;
  if (!key) throw new Error(`${command} needs --key sk_test_... (or SANDBANK_SECRET_KEY)`);
  const api = typeof values.api === 'string' ? values.api : loadConfig(process.env, []).publicUrl;
  return { key, api: api.replace(/\/+$/, '') };
}

/** A request that reached no server, said so (with --api to name another). */
export function unreachable(api: string, error: unknown): Error {
  const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  return new Error(`no Sandbank server answered at ${api} (${reason}); pass --api URL`);
}

/** What an error answer says: its error.message, else its text. */
export function refusal(text: string): string {
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    return text;
  }
}

/**
 * Calls the running server with the merchant's secret key (--key or SANDBANK_SECRET_KEY, --api or
 * PUBLIC_URL); answers the body's text, or throws saying why (`what` names the call in the message).
 */
export async function callServer(
  command: string,
  what: string,
  values: CliValues,
  method: string,
  path: string,
  body?: unknown,
): Promise<string> {
  const { key, api } = serverOf(command, values);
  let response: Response;
  try {
    response = await fetch(`${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'user-agent': CLI_USER_AGENT,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw unreachable(api, error);
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`the server refused the ${what} (${response.status}): ${refusal(text)}`);
  return text;
}

/** `sandbank reset`: POST /v1/simulate/reset on the running server with the merchant's secret key. */
export async function runReset(values: CliValues): Promise<number> {
  const text = await callServer('reset', 'reset', values, 'POST', '/v1/simulate/reset');
  if (values.json) {
    process.stdout.write(`${text}\n`);
    return 0;
  }
  const reset = JSON.parse(text) as {
    merchant_id: string;
    clock: { now: string };
    deleted: Record<string, number>;
  };
  const lines = Object.entries(reset.deleted)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `  ${kind.padEnd(24)}${count}`);
  process.stdout.write(
    `Reset ${reset.merchant_id}: the clock is back to real time (${reset.clock.now}).\n` +
      (lines.length > 0 ? `Deleted:\n${lines.join('\n')}\n` : 'Nothing to delete.\n') +
      'Kept: the merchant, its API keys and its webhook endpoints.\n',
  );
  return 0;
}

/**
 * `sandbank snapshot save|restore|delete NAME` and `sandbank snapshot list`: the key's merchant's
 * snapshots on the running server (POST /v1/sandbox/snapshots, …/{name}/restore, DELETE, GET).
 */
export async function runSnapshot(args: string[], values: CliValues): Promise<number> {
  const [action, name] = args;
  const named = (verb: string) => {
    if (!name || args.length !== 2)
      throw new Error(`snapshot ${verb} needs a NAME: sandbank snapshot ${verb} NAME`);
    return encodeURIComponent(name);
  };
  let text: string;
  if (action === 'save')
    text = await callServer('snapshot', 'save', values, 'POST', '/v1/sandbox/snapshots', {
      name: decodeURIComponent(named('save')),
    });
  else if (action === 'restore')
    text = await callServer(
      'snapshot',
      'restore',
      values,
      'POST',
      `/v1/sandbox/snapshots/${named('restore')}/restore`,
    );
  else if (action === 'delete')
    text = await callServer(
      'snapshot',
      'deletion',
      values,
      'DELETE',
      `/v1/sandbox/snapshots/${named('delete')}`,
    );
  else if (action === 'list' && args.length === 1)
    text = await callServer('snapshot', 'listing', values, 'GET', '/v1/sandbox/snapshots');
  else throw new Error('usage: sandbank snapshot save|restore|delete NAME, or sandbank snapshot list');
  if (values.json) {
    process.stdout.write(`${text}\n`);
    return 0;
  }
  type Shown = { name: string; objects: number; created_at: string };
  const line = (s: Shown) =>
    `  ${s.name.padEnd(24)}${String(s.objects).padStart(8)} rows   saved ${s.created_at}`;
  const answer = JSON.parse(text) as Shown & { data?: Shown[] };
  if (action === 'list')
    process.stdout.write(
      answer.data && answer.data.length > 0 ? `${answer.data.map(line).join('\n')}\n` : 'No snapshots.\n',
    );
  else {
    const done = { save: 'Saved', restore: 'Restored', delete: 'Deleted' }[action];
    process.stdout.write(
      `${done} snapshot ${answer.name} (${answer.objects} rows, saved ${answer.created_at}).\n`,
    );
  }
  return 0;
}

/**
 * `sandbank fixtures apply <file.json|name>`: POST /v1/simulate/fixtures with the document read from
 * the file, or the shipped fixture's name.
 */
export async function runFixturesApply(source: string, values: CliValues): Promise<number> {
  let body: unknown = { name: source };
  if (source.endsWith('.json') || existsSync(source)) {
    if (!existsSync(source)) throw new Error(`no fixture file ${source}`);
    try {
      body = JSON.parse(readFileSync(source, 'utf8'));
    } catch (error) {
      throw new Error(`${source} is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const text = await callServer('fixtures apply', 'fixture', values, 'POST', '/v1/simulate/fixtures', body);
  if (values.json) {
    process.stdout.write(`${text}\n`);
    return 0;
  }
  const run = JSON.parse(text) as {
    name: string | null;
    steps: {
      index: number;
      id: string | null;
      method: string;
      path: string;
      status: number;
      object: { id?: string };
    }[];
  };
  const lines = run.steps.map(
    (step) =>
      `  ${String(step.index).padStart(3)}  ${(step.id ?? '-').padEnd(22)} ${step.status}  ${step.method.padEnd(4)} ${step.path}${step.object.id ? `  → ${step.object.id}` : ''}`,
  );
  process.stdout.write(
    `Applied ${run.name ?? source}: ${run.steps.length} steps ran.\n${lines.join('\n')}\n`,
  );
  return 0;
}

/** `sandbank trigger TYPE [--set k=v ...]`: POST /v1/simulate/events; `--list` prints the recipes. */
export async function runTrigger(types: string[], values: CliValues): Promise<number> {
  if (values.list) {
    const text = await callServer('trigger', 'listing', values, 'GET', '/v1/simulate/events/recipes');
    if (values.json) {
      process.stdout.write(`${text}\n`);
      return 0;
    }
    const recipes = (JSON.parse(text) as { data: { type: string; drives: string; accepts: string[] }[] })
      .data;
    for (const recipe of recipes)
      process.stdout.write(`${recipe.type}\n  ${recipe.drives}\n  --set ${recipe.accepts.join(', ')}\n`);
    return 0;
  }
  const [type, ...extra] = types;
  if (!type || extra.length > 0)
    throw new Error('trigger needs one event type: sandbank trigger transfer.returned [--set key=value ...]');
  const set: Record<string, string> = {};
  for (const pair of (values.set as string[] | undefined) ?? []) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--set takes key=value (got ${pair})`);
    if (Object.hasOwn(set, pair.slice(0, at))) throw new Error(`--set ${pair.slice(0, at)} is given twice`);
    set[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const text = await callServer('trigger', 'trigger', values, 'POST', '/v1/simulate/events', { type, set });
  if (values.json) {
    process.stdout.write(`${text}\n`);
    return 0;
  }
  const result = JSON.parse(text) as {
    object_id: string;
    event: { id: string; type: string };
    events: { id: string; type: string; object_id: string }[];
  };
  process.stdout.write(
    `Triggered ${result.event.type} ${result.event.id} on ${result.object_id}\n` +
      `Events of the run (${result.events.length}):\n` +
      result.events.map((e) => `  ${e.id}  ${e.type.padEnd(32)}${e.object_id}`).join('\n') +
      '\n',
  );
  return 0;
}
