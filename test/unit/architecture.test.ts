import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * docs/internals/house-rules.md, "dependencies point inward", checked on every import of every .ts file under
 * src/ (static `import … from`, `export … from`, `import x = require(…)` and `import('…')` with a
 * literal path; relative paths resolved, packages ignored). The layers are path patterns, so a file
 * split in two or a new module falls into its layer by where it lives and how it is named:
 *
 *   entry     src/*.ts (main, start, server, app, cli, deps, config, …): the wiring, imports anything
 *   kernel    src/kernel/**: imports nothing of the project but the kernel
 *   database  src/db/** and every *.table.ts (or *.table-<part>.ts)
 *   http      src/http/**: what the HTTP adapters share (body limit, static files and assets, page
 *             security headers, client address, the unstorable-text check); neither an adapter
 *             nor the domain
 *   rest      src/rest/** (the kit a module's routes are written with), src/api/rest/** (the REST
 *             app, its middleware and the OpenAPI document, above the modules), src/api/stripe/**
 *             (the Stripe dialect, a second REST surface over the same services) and every
 *             *.routes.ts under src/modules (or *.routes-<part>.ts)
 *   graphql   src/graphql/** (the kit a module's GraphQL is written with), src/api/graphql/** (the
 *             GraphQL server: schema, Yoga, WebSocket, plugins, above the modules) and every
 *             *.graphql.ts under src/modules (or *.graphql-<part>.ts, as a file split off one is
 *             named: <module>.graphql-<part>.ts)
 *   web       src/web/** (hosted pages, dashboard, docs)
 *   manifest  src/modules/index.ts (the list of modules), src/modules/module.ts (defineModule) and
 *             each module's manifest, src/modules/<module>/index.ts: the wiring of one module,
 *             imports anything but the entry files
 *   service   the rest of src/modules/** (services, machines, resources, schemas, src/modules/context.ts)
 *
 * Rules:
 *   - the kernel imports nothing of the project outside src/kernel;
 *   - services and the database import no adapter, nothing of src/http and none of the wiring;
 *   - adapters (rest, graphql, web) import no database file and no other adapter; they may name the
 *     wiring's types (AppDeps);
 *   - src/http imports no adapter, no database file and none of the wiring;
 *   - a manifest is imported only by the wiring, the list, and the registries derived from the
 *     list (src/api, the files directly under src/modules): never by a module's own files, so the
 *     list imports the manifests and nothing imports back;
 *   - the kits (src/rest, src/graphql) import nothing of src/api: the servers sit above the modules,
 *     the kits below them;
 *   - no file in src/db imports from src/modules (src/db names no module: the events' fan-out is
 *     registered from outside, and its tables are the infrastructure's);
 *   - every file under src/ falls in one of the layers above (a new folder is placed here first);
 *   - no import cycle among module folders: the imports between src/modules/<a> and <b> point one
 *     way (a module reacts to a higher one through a hook it exposes, registered in
 *     src/modules/reactions.ts, or the function moves to the module it belongs to);
 *   - nor through the kits (src/rest, src/graphql) or the files the modules share (the files
 *     directly under src/modules, src/deps.ts): none of them imports a module that imports it.
 *
 * `import type` counts like any import: an adapter that needs a database type (a transaction `Tx`)
 * takes it from the service context, src/modules/context.ts, which re-exports what adapters may name
 * (and declares AppDeps, whose members the wiring, src/deps.ts, fills in).
 * The layers and these rules are described in docs/internals/architecture.md.
 */

type Layer =
  | 'entry'
  | 'kernel'
  | 'database'
  | 'http'
  | 'rest'
  | 'graphql'
  | 'web'
  | 'manifest'
  | 'service'
  | 'other';

/** The list of modules, defineModule, and each module's manifest (`src/modules/<module>/index.ts`). */
function isManifest(inSrc: string): boolean {
  return /^modules\/(index|module)\.ts$/.test(inSrc) || /^modules\/[^/]+\/index\.ts$/.test(inSrc);
}

/**
 * Whether a file's name marks it with `role`: one of the dot-separated parts after the first is the
 * role, or starts with it and a dash — `fx.graphql.ts`, `events.subscriptions.graphql.ts` and a
 * part split off as `<module>.graphql-<part>.ts` are all GraphQL.
 */
function named(path: string, role: 'table' | 'routes' | 'graphql'): boolean {
  const parts = path
    .slice(path.lastIndexOf('/') + 1)
    .replace(/\.ts$/, '')
    .split('.')
    .slice(1);
  return parts.some((part) => part === role || part.startsWith(`${role}-`));
}

/** The layer of a path relative to the repository root (`src/…`, forward slashes). */
function layerOf(path: string): Layer {
  if (!path.startsWith('src/')) return 'other';
  const inSrc = path.slice('src/'.length);
  const inModules = inSrc.startsWith('modules/');
  if (!inSrc.includes('/')) return 'entry';
  if (inSrc.startsWith('kernel/')) return 'kernel';
  if (inSrc.startsWith('db/') || named(path, 'table')) return 'database';
  if (inSrc.startsWith('http/')) return 'http';
  if (/^(api\/)?rest\/|^api\/stripe\//.test(inSrc) || (inModules && named(path, 'routes'))) return 'rest';
  if (/^(api\/)?graphql\//.test(inSrc) || (inModules && named(path, 'graphql'))) return 'graphql';
  if (inSrc.startsWith('web/')) return 'web';
  if (isManifest(inSrc)) return 'manifest';
  if (inModules) return 'service';
  return 'other';
}

const ADAPTERS: readonly Layer[] = ['rest', 'graphql', 'web'];
const NAMES: Record<Layer, string> = {
  entry: 'the wiring',
  kernel: 'the kernel',
  database: 'the database',
  http: 'src/http',
  rest: 'the REST adapter',
  graphql: 'the GraphQL adapter',
  web: 'the web pages',
  manifest: 'a manifest',
  service: 'a service',
  other: 'an unplaced file',
};

/** Why a file of layer `from` may not import a file of layer `to`, or null when it may. */
function refusal(from: Layer, to: Layer): string | null {
  const who = NAMES[from];
  if (from === 'entry' || to === 'other') return null;
  if (from === 'manifest') return to === 'entry' ? `${who} imports none of the wiring (src/*.ts)` : null;
  if (from === 'kernel') return to === 'kernel' ? null : `${who} imports nothing outside src/kernel`;
  if (to === 'entry' && !ADAPTERS.includes(from)) return `${who} imports none of the wiring (src/*.ts)`;
  if (from === 'service' || from === 'database') {
    if (ADAPTERS.includes(to)) return `${who} imports no adapter (${NAMES[to]})`;
    if (to === 'http') return `${who} imports nothing of src/http`;
    return null;
  }
  if (to === 'database')
    return `${who} imports no database file (a service does the work; types via src/modules/context.ts)`;
  if (ADAPTERS.includes(to) && to !== from) return `${who} imports no other adapter (${NAMES[to]})`;
  return null;
}

/**
 * Why `file` may not import `target` by where both lie (beyond their layers), or null: the
 * manifests' direction and src/db's independence from the modules.
 */
function pathRefusal(file: string, target: string): string | null {
  if (file.startsWith('src/db/') && target.startsWith('src/modules/'))
    return 'no file in src/db imports from src/modules (a module registers what it brings from outside)';
  if (/^src\/(rest|graphql)\//.test(file) && target.startsWith('src/api/'))
    return 'a kit (src/rest, src/graphql) imports nothing of src/api (the servers import the kits)';
  const from = layerOf(file);
  if (layerOf(target) !== 'manifest' || from === 'manifest' || from === 'entry') return null;
  // The registries derived from the list: REST mounting, GraphQL loading, retention and the like.
  if (/^src\/api\/(rest|graphql)\//.test(file) || /^src\/modules\/[^/]+\.ts$/.test(file)) return null;
  return `${NAMES[from]} imports no manifest (only the wiring, the list and the registries derived from it do)`;
}

interface Import {
  /** The importing file, `src/…`. */
  file: string;
  /** The module specifier as written. */
  specifier: string;
  /** The imported file, `src/…`, or null for a package. */
  target: string | null;
  line: number;
}

/** The project-relative path an import specifier names, or null when it is a package. */
function resolveSpecifier(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  // NodeNext: specifiers carry their extension (`.ts`, or `.js` for the `.ts` file, `.json`).
  return posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.([cm]?)js$/, '.$1ts');
}

/** Every import of one source text. */
function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (literal: ts.Node) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const specifier = literal.text;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    found.push({ file, specifier, target: resolveSpecifier(file, specifier), line });
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      add(node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument) add(argument);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Violation extends Import {
  rule: string;
}

/** The refused imports among `files` (path `src/…` → source text). */
function violationsOf(files: ReadonlyMap<string, string>): { imports: Import[]; violations: Violation[] } {
  const imports = [...files].flatMap(([file, text]) => importsOf(file, text));
  const violations: Violation[] = [];
  for (const found of imports) {
    if (found.target === null) continue;
    const rule = refusal(layerOf(found.file), layerOf(found.target)) ?? pathRefusal(found.file, found.target);
    if (rule) violations.push({ ...found, rule });
  }
  return { imports, violations };
}

/** The module folder a path lies in (`src/modules/<module>/…`), or null (src/modules/*.ts, outside). */
function moduleOf(path: string): string | null {
  return /^src\/modules\/([^/]+)\//.exec(path)?.[1] ?? null;
}

/**
 * What a path stands for in the wider cycle check: its module folder, a kit (`rest`, `graphql`:
 * src/rest and src/graphql, which the modules' adapters are written with), or one of the files the
 * modules share (`modules/context.ts`, `modules/operation.ts`, … and `deps.ts`); null for the rest
 * (the kernel and src/db lie below, src/api, src/web and the other entry files above).
 */
function sharedNodeOf(path: string): string | null {
  const module = moduleOf(path);
  if (module) return module;
  const kit = /^src\/(rest|graphql)\//.exec(path)?.[1];
  if (kit) return kit;
  if (/^src\/modules\/[^/]+\.ts$/.test(path) || path === 'src/deps.ts') return path.slice('src/'.length);
  return null;
}

/**
 * Modules that may stand in an import cycle of module folders, each with why it cannot be broken
 * yet. Empty: every module folder's imports point one way.
 */
const CYCLE_ALLOWLIST: ReadonlyMap<string, string> = new Map();

/**
 * The import cycles among module folders (`src/modules/<a>` → `<b>` → … → `<a>`): each strongly
 * connected set of two modules or more, every import that ties it named (a file of one module
 * importing a file of another). The files directly under src/modules (context, jobs, reactions,
 * retention, recipe) are the modules' shared context and wiring, in no module.
 */
function moduleCycles(imports: readonly Import[], nodeOf = moduleOf): string[][] {
  const edges = new Map<string, Map<string, string[]>>();
  for (const found of imports) {
    const from = nodeOf(found.file);
    const to = found.target === null ? null : nodeOf(found.target);
    if (!from || !to || from === to) continue;
    const out = edges.get(from) ?? new Map<string, string[]>();
    out.set(to, [...(out.get(to) ?? []), where(found)]);
    edges.set(from, out);
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length < 2) return;
    members.sort();
    const ties = members.flatMap((a) =>
      [...(edges.get(a) ?? [])].filter(([b]) => members.includes(b)).flatMap(([, lines]) => lines),
    );
    cycles.push([members.join(' ↔ '), ...ties]);
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const where = (found: Import) => `${found.file}:${found.line} imports '${found.specifier}'`;
const describeViolation = (v: Violation) => `${where(v)}: ${v.rule}`;

describe('architecture (docs/internals/house-rules.md, dependencies point inward)', () => {
  it('no file under src/ imports across the layers', () => {
    const files = new Map(sourceFiles('src').map((file) => [file, readFileSync(join(root, file), 'utf8')]));
    const { imports, violations } = violationsOf(files);
    const projectImports = imports.filter((found) => found.target !== null);
    expect(files.size).toBeGreaterThan(100);
    expect(projectImports.length).toBeGreaterThan(500);
    // Every file has its layer, and every layer has files: a new folder must be placed here first.
    expect([...files.keys()].filter((file) => layerOf(file) === 'other')).toEqual([]);
    const layers = new Set([...files.keys()].map(layerOf));
    expect([...layers].sort()).toEqual([
      'database',
      'entry',
      'graphql',
      'http',
      'kernel',
      'manifest',
      'rest',
      'service',
      'web',
    ]);
    // Every import was resolved to a file that exists (no path the rules would misread).
    expect(projectImports.filter((found) => !existsSync(join(root, found.target!))).map(where)).toEqual([]);
    expect(violations.map(describeViolation)).toEqual([]);
  });

  it('the checker reports each kind of refused import', () => {
    const examples: [file: string, text: string][] = [
      ['src/kernel/a.ts', `import { x } from '../modules/m/m.service.ts';`],
      ['src/kernel/b.ts', `export { y } from '../db/client.ts';`],
      ['src/kernel/c.ts', `const r = await import('../api/rest/app.ts');`],
      ['src/kernel/d.ts', `import type { G } from '../graphql/builder.ts';`],
      ['src/kernel/e.ts', `import '../web/layout.ts';`],
      ['src/modules/m/m.service.ts', `import { route } from './m.routes.ts';`],
      ['src/modules/m/m.read.ts', `import { q } from './m.graphql-queries.ts';`],
      ['src/modules/m/m.rows.ts', `import { r } from './m.routes-simulate.ts';`],
      ['src/modules/m/m.graphql-mutations.ts', `import { t } from './m.table-archive.ts';`],
      ['src/modules/m/m.machine.ts', `import { field } from './m.graphql.ts';`],
      ['src/modules/m/m.resource.ts', `import { page } from '../../web/layout.ts';`],
      ['src/modules/m/m.extra.ts', `import { builder } from '../../graphql/builder.ts';`],
      ['src/modules/m/m.routes.ts', `import { table } from './m.table.ts';`],
      ['src/rest/x.ts', `import type { Tx } from '../db/client.ts';`],
      ['src/rest/y.ts', `import { builder } from '../graphql/builder.ts';`],
      ['src/rest/z.ts', `import { page } from '../web/layout.ts';`],
      ['src/graphql/x.ts', `import { other } from '../modules/n/n.table.ts';`],
      ['src/graphql/y.ts', `import { MAX } from '../rest/middleware/json-body.ts';`],
      ['src/modules/m/m.graphql.ts', `import { page } from '../../web/files.ts';`],
      ['src/web/x.ts', `import { db } from '../db/client.ts';`],
      ['src/web/y.ts', `import { r } from '../modules/n/n.routes.ts';`],
      ['src/web/z.ts', `const g = () => import('../api/graphql/schema.ts');`],
      ['src/http/x.ts', `import { r } from '../api/rest/app.ts';`],
      ['src/http/y.ts', `import { t } from '../modules/m/m.table.ts';`],
      ['src/modules/m/m.service.ts', `import { f } from '../../http/files.ts';`],
      ['src/modules/m/m.service.ts', `import type { AppDeps } from '../../deps.ts';`],
      ['src/modules/m/m.table.ts', `import { r } from './m.routes.ts';`],
      ['src/db/schema.ts', `import { s } from '../config.ts';`],
      ['src/db/outbox.ts', `import { t } from '../modules/webhooks/webhooks.table.ts';`],
      ['src/db/x.ts', `import type { T } from '../modules/context.ts';`],
      ['src/modules/m/m.service.ts', `import { MODULES } from '../index.ts';`],
      ['src/modules/m/m.service.ts', `import manifest from './index.ts';`],
      ['src/modules/m/m.routes.ts', `import manifest from '../n/index.ts';`],
      ['src/web/x.ts', `import { MODULES } from '../modules/index.ts';`],
      ['src/modules/m/index.ts', `import { deps } from '../../deps.ts';`],
      ['src/http/z.ts', `import { c } from '../config.ts';`],
      ['src/graphql/z.ts', `import { schema } from '../api/graphql/schema.ts';`],
      ['src/rest/z.ts', `import { buildRestApp } from '../api/rest/app.ts';`],
      ['src/graphql/w.ts', `import { MODULES } from '../modules/index.ts';`],
      ['src/rest/w.ts', `import { MODULES } from '../modules/index.ts';`],
    ];
    for (const [file, text] of examples) {
      const { violations } = violationsOf(new Map([[file, text]]));
      expect(violations, `${file}: ${text}`).toHaveLength(1);
      const [specifier] = /'[^']+'/.exec(text) ?? [];
      expect(describeViolation(violations[0]!)).toMatch(`${file}:1 imports ${specifier}: `);
    }
    const allowed: [file: string, text: string][] = [
      ['src/kernel/a.ts', `import { b } from './b.ts'; import { z } from 'zod';`],
      [
        'src/modules/m/m.service.ts',
        `import { db } from '../../db/client.ts'; import { t } from './m.table.ts';`,
      ],
      [
        'src/modules/m/m.routes.ts',
        `import { s } from './m.service.ts'; import { r } from '../../rest/render.ts';`,
      ],
      ['src/modules/m/m.graphql.ts', `import type { ServiceContext } from '../context.ts';`],
      [
        'src/modules/m/m.graphql-mutations.ts',
        `import { b } from '../../graphql/builder.ts'; import './m.graphql.ts';`,
      ],
      ['src/modules/m/m.subscriptions.graphql.ts', `import { b } from '../../graphql/builder.ts';`],
      [
        'src/graphql/x.ts',
        `import { f } from '../http/files.ts'; import { q } from '../modules/m/m.queries.ts';`,
      ],
      ['src/web/x.ts', `import { h } from '../http/security.ts'; import { k } from '../kernel/money.ts';`],
      ['src/server.ts', `import { db } from './db/client.ts'; import { a } from './api/rest/app.ts';`],
      [
        'src/modules/m/index.ts',
        `import { r } from './m.routes.ts'; import { t } from './m.table.ts'; const g = () => import('./m.graphql.ts');`,
      ],
      ['src/modules/index.ts', `import m from './m/index.ts'; import { f } from '../db/outbox.ts';`],
      ['src/api/rest/app.ts', `import { MODULES } from '../../modules/index.ts';`],
      ['src/api/graphql/schema.ts', `import { MODULES } from '../../modules/index.ts';`],
      ['src/api/graphql/yoga.ts', `import { builder } from '../../graphql/builder.ts';`],
      ['src/api/rest/app.ts', `import { mountOperations } from '../../rest/mount.ts';`],
      ['src/modules/retention.ts', `import { MODULES } from './index.ts';`],
      ['src/app.ts', `import { registerModules } from './modules/index.ts';`],
    ];
    for (const [file, text] of allowed) {
      expect(violationsOf(new Map([[file, text]])).violations, `${file}: ${text}`).toEqual([]);
    }
  });

  it('no import cycle among module folders (src/modules/<a> → <b> → … → <a>)', () => {
    const files = new Map(sourceFiles('src').map((file) => [file, readFileSync(join(root, file), 'utf8')]));
    const { imports } = violationsOf(files);
    const cycles = moduleCycles(imports).filter(
      ([members]) => !members!.split(' ↔ ').every((module) => CYCLE_ALLOWLIST.has(module)),
    );
    expect(cycles).toEqual([]);
  });

  it('no import cycle through the kits or the files the modules share', () => {
    // A kit or a shared file imports no module that imports it back (directly or through others):
    // what a kit or src/modules/context.ts must name of a module is typed where it lies (Principal,
    // AppDeps) or added by the module itself (the Transaction interface's event fields).
    const files = new Map(sourceFiles('src').map((file) => [file, readFileSync(join(root, file), 'utf8')]));
    const { imports } = violationsOf(files);
    expect(moduleCycles(imports, sharedNodeOf)).toEqual([]);
  });

  it('the wider cycle check finds a cycle through a kit', () => {
    const imports = [
      ['src/modules/a/a.graphql.ts', `import { builder } from '../../graphql/builder.ts';`],
      ['src/graphql/builder.ts', `import type { P } from '../modules/a/a.service.ts';`],
      ['src/modules/b/b.service.ts', `import { x } from '../context.ts';`],
    ].flatMap(([file, text]) => importsOf(file!, text!));
    expect(moduleCycles(imports).map(([members]) => members)).toEqual([]);
    expect(moduleCycles(imports, sharedNodeOf).map(([members]) => members)).toEqual(['a ↔ graphql']);
  });

  it('the cycle check finds a cycle of module folders, and only one', () => {
    const imports = [
      ['src/modules/a/a.service.ts', `import { b } from '../b/b.service.ts';`],
      ['src/modules/b/b.service.ts', `import { c } from '../c/c.rows.ts';`],
      ['src/modules/c/c.rows.ts', `import type { A } from '../a/a.table.ts';`],
      ['src/modules/c/c.graphql.ts', `import { d } from '../d/d.service.ts';`],
      ['src/modules/d/d.service.ts', `import { x } from '../context.ts'; import { y } from './d.rows.ts';`],
      ['src/modules/context.ts', `import type { T } from './d/d.service.ts';`],
    ].flatMap(([file, text]) => importsOf(file!, text!));
    const cycles = moduleCycles(imports);
    expect(cycles.map(([members]) => members)).toEqual(['a ↔ b ↔ c']);
    expect(cycles[0]).toContain("src/modules/c/c.rows.ts:1 imports '../a/a.table.ts'");
  });

  it('reads every form of import, with its line, and skips import-like text', () => {
    const text = [
      `import type { A } from './a.ts';`,
      `export * from './b.ts';`,
      `const c = await import('./c.ts');`,
      `type D = import('./d.ts').D;`,
      `const e = "await import('./e.ts')"; // text, not an import`,
      `// import { f } from './f.ts';`,
      `import { z } from 'zod';`,
    ].join('\n');
    expect(importsOf('src/modules/m/x.ts', text).map(({ target, line }) => [target, line])).toEqual([
      ['src/modules/m/a.ts', 1],
      ['src/modules/m/b.ts', 2],
      ['src/modules/m/c.ts', 3],
      ['src/modules/m/d.ts', 4],
      [null, 7],
    ]);
  });
});
