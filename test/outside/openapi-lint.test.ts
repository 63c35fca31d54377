import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEventTypes } from '../../src/modules/webhooks/webhooks.event-types.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/**
 * The OpenAPI document as third-party tools read it: Redocly's recommended rules and Spectral's
 * OpenAPI ruleset report no error, swagger-parser validates it against the OpenAPI 3.1 schema, and
 * every operation carries what a generated client needs.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON walked by key
type Json = any;

let t: TestApp;
let text: string;
let document: Json;

beforeAll(async () => {
  t = await createTestApp();
  const response = await t.rest('GET', '/v1/openapi.json');
  text = response.text;
  document = JSON.parse(text);
});
afterAll(() => t.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
function operations(): { method: string; path: string; operation: Json }[] {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] })),
  );
}

describe('the OpenAPI document, linted by third-party tools', () => {
  it('Redocly (recommended rules) reports no error', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((problem) => problem.severity === 'error');
    expect(
      errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it("Spectral's OpenAPI ruleset reports no error", async () => {
    const spectral = new Spectral();
    spectral.setRuleset(oas as never);
    const results = await spectral.run(new Document(text, JsonParser, 'openapi.json'));
    const errors = results.filter((result) => result.severity === 0);
    expect(errors.map((result) => `${result.code}: ${result.message} at ${result.path.join('.')}`)).toEqual(
      [],
    );
  });

  it('swagger-parser validates it against the OpenAPI 3.1 schema and resolves every $ref', async () => {
    const validated = (await SwaggerParser.validate(structuredClone(document))) as Json;
    expect(validated.openapi).toBe('3.1.0');
  });
});

describe('what a generated client needs', () => {
  it('every operation has a unique operationId, a tag that is declared, and a response schema', () => {
    const declared = new Set(document.tags.map((tag: Json) => tag.name));
    const ids = new Set<string>();
    for (const { method, path, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(ids.has(operation.operationId), `${where}: duplicate ${operation.operationId}`).toBe(false);
      ids.add(operation.operationId);
      for (const tag of operation.tags) expect(declared.has(tag), `${where}: tag ${tag}`).toBe(true);
      const success = Object.entries<Json>(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(success.length, where).toBe(1);
      const content = success[0]?.[1].content as Record<string, Json>;
      // A download answers the file itself: text or XML, as a string.
      if (!content['application/json']) {
        for (const [type, media] of Object.entries(content)) {
          expect(type, where).toMatch(/^(text\/plain|application\/xml)/);
          expect(media.schema, where).toMatchObject({ type: 'string' });
        }
        continue;
      }
      const schema = content['application/json'].schema;
      // The success body names its fields: never the bare {type: object} of an undescribed answer.
      expect(JSON.stringify(schema), where).toContain('$ref');
    }
  });

  it('every operation documents its error statuses with the error envelope and the codes of each', () => {
    for (const { method, path, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const errors = Object.entries<Json>(operation.responses).filter(([status]) => !status.startsWith('2'));
      expect(
        errors.map(([status]) => status),
        where,
      ).toEqual(expect.arrayContaining(['400', '500']));
      for (const [status, response] of errors) {
        expect(response.content['application/json'].schema.$ref, `${where} ${status}`).toBe(
          '#/components/schemas/Error',
        );
        expect(response['x-error-codes'].length, `${where} ${status}`).toBeGreaterThan(0);
      }
      if (operation.security?.length !== 0) {
        expect(Object.keys(operation.responses), where).toEqual(expect.arrayContaining(['401', '429']));
      }
    }
  });

  it('keyless operations say so; keyed POSTs take an Idempotency-Key, but those marked x-idempotent: false', () => {
    expect(document.paths['/merchants'].post.security).toEqual([]);
    expect(document.paths['/keys/roll'].post['x-idempotent']).toBe(false);
    for (const { method, path, operation } of operations()) {
      if (method !== 'post' || operation.security?.length === 0) continue;
      const refs = (operation.parameters ?? []).map((parameter: Json) => parameter.$ref);
      if (operation['x-idempotent'] !== false) {
        expect(refs, path).toContain('#/components/parameters/IdempotencyKey');
        continue;
      }
      // Never stored for replay: no Idempotency-Key offered, no replay header, no replay errors.
      expect(refs, path).not.toContain('#/components/parameters/IdempotencyKey');
      const codes = Object.values<Json>(operation.responses).flatMap((r) => r['x-error-codes'] ?? []);
      expect(codes, path).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/^idempotency_key_(reused|in_use)$/)]),
      );
      expect(Object.keys(operation.responses['200'].headers), path).not.toContain('Idempotent-Replayed');
    }
  });

  it('the servers entry is absolute, so a saved copy still reaches this server', () => {
    expect(document.servers[0].url).toBe('http://sandbank.test/v1');
  });

  it('has a webhooks entry for every event type the server emits', () => {
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual([...listEventTypes()].sort());
  });
});
