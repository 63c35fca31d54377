import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { INFRASTRUCTURE_ID_PREFIXES, idPrefixes } from '../../src/kernel/ids.ts';
import { MODULES } from '../../src/modules/index.ts';
import { resetKinds, resetTables } from '../../src/modules/sandbox/sandbox.reset.ts';
import { recipes } from '../../src/modules/trigger/trigger.recipes.ts';
import { eventSources, listEventTypes } from '../../src/modules/webhooks/webhooks.event-types.ts';
import { eventTypePayloads } from '../../src/modules/webhooks/webhooks.payloads.ts';

/**
 * The list of modules (src/modules/index.ts) is the one place a module is registered: every module
 * folder has its manifest there, every table and id kind is claimed by exactly one module (or is the
 * infrastructure's, in src/db and the wiring), so a registry derived from the list misses nothing.
 */

const MODULES_DIR = fileURLToPath(new URL('../../src/modules/', import.meta.url));
const DB_DIR = fileURLToPath(new URL('../../src/db/', import.meta.url));

/** Every table a `*.table.ts` file under `dir` exports, by the folder it lies in. */
async function tablesUnder(dir: string, folders: readonly string[]): Promise<Map<PgTable, string>> {
  const found = new Map<PgTable, string>();
  for (const folder of folders) {
    for (const file of readdirSync(`${dir}${folder}`).filter((name) => name.endsWith('.table.ts'))) {
      const exported: Record<string, unknown> = await import(`${dir}${folder}/${file}`);
      for (const value of Object.values(exported)) if (is(value, PgTable)) found.set(value, folder);
    }
  }
  return found;
}

describe('module manifests (src/modules/index.ts)', () => {
  const folders = readdirSync(MODULES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('lists every module folder once, each by its own manifest', () => {
    expect(MODULES.map((module) => module.name).sort()).toEqual(folders);
  });

  it('claims every table of the modules in its own module’s manifest, once', async () => {
    const files = await tablesUnder(MODULES_DIR, folders);
    const claimed = MODULES.flatMap((module) =>
      (module.tables ?? []).map((table) => [table, module.name] as const),
    );
    expect(claimed.length).toBe(new Set(claimed.map(([table]) => table)).size);
    const named = (pairs: Iterable<readonly [PgTable, string]>) =>
      [...pairs].map(([table, module]) => `${module}: ${getTableName(table)}`).sort();
    expect(named(claimed)).toEqual(named(files));
    // The infrastructure's tables (events, scheduled jobs) are src/db's and no module's.
    const infrastructure = await tablesUnder(DB_DIR, ['.']);
    expect(infrastructure.size).toBeGreaterThan(0);
    for (const table of infrastructure.keys()) expect(claimed.some(([mine]) => mine === table)).toBe(false);
  });

  it('claims every id kind in one module’s manifest, or as the infrastructure’s, each prefix once', () => {
    const claims = [
      ...Object.entries(INFRASTRUCTURE_ID_PREFIXES),
      ...MODULES.flatMap((module) => Object.entries(module.ids ?? {})),
    ];
    const kinds = claims.map(([kind]) => kind);
    const prefixes = claims.map(([, prefix]) => prefix);
    expect(kinds.length).toBe(new Set(kinds).size);
    expect(prefixes.length).toBe(new Set(prefixes).size);
    for (const prefix of prefixes) expect(prefix).toMatch(/^[a-z]+$/);
    // What newId uses is exactly what the manifests and the infrastructure claim.
    expect([...idPrefixes()].sort()).toEqual([...claims].sort());
  });

  it('loads every GraphQL file through a manifest (as the build’s one GraphQL chunk does)', () => {
    // scripts/build.mjs bundles every module's *.graphql*.ts into the chunk the manifests' lazy
    // imports resolve to; from the sources, each must be reached from its manifest's import.
    const graphqlFile = /\.graphql(-[a-z-]+)?\.ts$/;
    const files = folders.flatMap((folder) =>
      readdirSync(`${MODULES_DIR}${folder}`)
        .filter((name) => graphqlFile.test(name))
        .map((name) => `${folder}/${name}`),
    );
    const importsOf = (file: string) =>
      [...readFileSync(`${MODULES_DIR}${file}`, 'utf8').matchAll(/(?:from |import\(?\s*)'\.\/([^']+)'/g)].map(
        ([, name]) => `${file.slice(0, file.indexOf('/'))}/${name}`,
      );
    const reached = new Set<string>();
    const visit = (file: string) => {
      for (const target of importsOf(file))
        if (graphqlFile.test(target) && !reached.has(target)) {
          reached.add(target);
          visit(target);
        }
    };
    for (const folder of folders) visit(`${folder}/index.ts`);
    expect(files.length).toBeGreaterThan(15);
    expect(files.filter((file) => !reached.has(file))).toEqual([]);
  });

  it('handles each job kind in one module', () => {
    const kinds = MODULES.flatMap((module) => Object.keys(module.jobs ?? {}));
    expect(kinds.length).toBe(new Set(kinds).size);
    expect(kinds.length).toBeGreaterThan(10);
  });

  it('declares the events of each kind of object in one module, each kind with a payload schema', () => {
    const declared = MODULES.flatMap((module) =>
      (module.events ?? []).map((source) => [source, module.name] as const),
    );
    const objects = declared.map(([source]) => source.object);
    expect(objects.length).toBe(new Set(objects).size);
    const orders = declared.map(([source]) => source.order);
    expect(orders.length).toBe(new Set(orders).size);
    expect(eventSources().map((source) => source.object)).toEqual(
      [...declared].sort(([a], [b]) => a.order - b.order).map(([source]) => source.object),
    );
    // Every event type names a declared object, and has its payload's component.
    const types = listEventTypes();
    expect(types.length).toBeGreaterThan(40);
    for (const type of types) expect(objects).toContain(type.slice(0, type.indexOf('.')));
    expect(eventTypePayloads().map((payload) => payload.type)).toEqual(types);
    expect(types.length).toBe(new Set(types).size);
  });

  it('has one recipe per event type, each in one module, and none for a type that does not exist', () => {
    const declared = MODULES.flatMap((module) => (module.recipes ?? []).map((recipe) => recipe.type));
    expect(declared.length).toBe(new Set(declared).size);
    expect([...recipes().keys()].sort()).toEqual([...declared].sort());
    expect([...declared].sort()).toEqual([...listEventTypes()].sort());
  });

  it('declares each reset kind in one module, with a place of its own, of a table the module claims', () => {
    const declared = MODULES.flatMap((module) => (module.reset ?? []).map((kind) => [kind, module] as const));
    const names = declared.map(([kind]) => kind.kind);
    expect(names.length).toBe(new Set(names).size);
    const orders = declared.map(([kind]) => kind.order);
    expect(orders.length).toBe(new Set(orders).size);
    expect(resetKinds().map((kind) => kind.kind)).toEqual(
      [...declared].sort(([a], [b]) => a.order - b.order).map(([kind]) => kind.kind),
    );
    expect(resetTables().length).toBeGreaterThan(15);
    // A module resets only its own tables (events and scheduled jobs are src/db's, reset by the
    // modules that read them: events and scheduler).
    for (const [kind, module] of declared) {
      const own = (module.tables ?? []).map((table) => getTableName(table));
      if (own.length > 0) expect(own, `${module.name}: ${kind.kind}`).toContain(kind.table);
    }
  });
});
