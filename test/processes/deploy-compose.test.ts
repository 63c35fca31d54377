import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { ROOT } from './server-process.ts';

/**
 * deploy/compose.yaml is safe as it is started without settings (docs/guide/deploy.md): published on
 * loopback only, no well-known password or key, webhooks kept off private networks. The file is
 * read as compose reads it: YAML, then `${VAR}`, `${VAR:-default}` and `${VAR:?message}` filled
 * from the environment. (The stack itself runs under podman in test/container/.)
 */

const TEXT = readFileSync(join(ROOT, 'deploy', 'compose.yaml'), 'utf8');

interface Service {
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
}
const COMPOSE = parse(TEXT) as { services: Record<string, Service> };

class MissingVariable extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** Compose's interpolation of one value (the forms this file may use), from `env`. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (_, name: string, colon: string, kind: string | undefined, word: string) => {
      const set = name in env && (colon !== ':' || env[name] !== '');
      if (set) return env[name] as string;
      if (kind === '?') throw new MissingVariable(name, word);
      return kind === '-' ? word : '';
    },
  );
}

/**
 * A service's environment as its container gets it. A name without a value is passed through from
 * the environment compose runs in, and left out when that has none.
 */
function environmentOf(service: string, env: Record<string, string>): Record<string, string> {
  const entries = Object.entries(COMPOSE.services[service]?.environment ?? {});
  return Object.fromEntries(
    entries.flatMap(([name, value]): [string, string][] => {
      if (value !== null) return [[name, interpolate(String(value), env)]];
      const passed = env[name];
      return passed === undefined ? [] : [[name, passed]];
    }),
  );
}

const INSTANCES = Object.keys(COMPOSE.services).filter((name) => name.startsWith('sandbank-'));
const PASSWORD = { POSTGRES_PASSWORD: 'a0b1c2d3e4f5a6b7c8d9' };

describe('deploy/compose.yaml started without settings', () => {
  it('has the services the deployment guide describes', () => {
    expect(INSTANCES).toEqual(['sandbank-1', 'sandbank-2', 'sandbank-3']);
    expect(Object.keys(COMPOSE.services)).toEqual(expect.arrayContaining(['postgres', 'haproxy']));
  });

  it('publishes its ports on 127.0.0.1 only, unless SANDBANK_BIND says otherwise', () => {
    const published = Object.entries(COMPOSE.services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => [name, interpolate(String(port), {})] as const),
    );
    expect(published).toEqual([['haproxy', '127.0.0.1:8080:8080']]);
    const haproxy = COMPOSE.services.haproxy?.ports?.[0] as string;
    expect(interpolate(haproxy, { SANDBANK_BIND: '0.0.0.0', SANDBANK_PORT: '9000' })).toBe(
      '0.0.0.0:9000:8080',
    );
  });

  it('has no well-known database password: POSTGRES_PASSWORD is required, with a message', () => {
    let missing: MissingVariable | undefined;
    try {
      environmentOf('postgres', {});
    } catch (error) {
      missing = error as MissingVariable;
    }
    expect(missing?.variable).toBe('POSTGRES_PASSWORD');
    expect(missing?.message).toMatch(/set POSTGRES_PASSWORD/);
    for (const instance of INSTANCES)
      expect(() => environmentOf(instance, {}), instance).toThrow(/POSTGRES_PASSWORD/);
    // The password the database gets is the one in every instance's DATABASE_URL, and only that.
    expect(environmentOf('postgres', PASSWORD).POSTGRES_PASSWORD).toBe(PASSWORD.POSTGRES_PASSWORD);
    for (const instance of INSTANCES)
      expect(environmentOf(instance, PASSWORD).DATABASE_URL).toBe(
        `postgres://sandbank:${PASSWORD.POSTGRES_PASSWORD}@postgres:5432/sandbank`,
      );
    expect(TEXT).not.toMatch(/POSTGRES_PASSWORD:?-/);
  });

  it('has no well-known API key: the default merchant gets keys of its own unless they are pinned', () => {
    expect(TEXT).not.toMatch(/[sp]k_test_[A-Za-z0-9_]{8,}/);
    for (const instance of INSTANCES) {
      const config = loadConfig(environmentOf(instance, PASSWORD), []);
      expect(config.pinnedKeys, instance).toEqual({});
      const pinned = loadConfig(
        environmentOf(instance, { ...PASSWORD, SANDBANK_SECRET_KEY: 'sk_test_mine_0123456789' }),
        [],
      );
      expect(pinned.pinnedKeys).toEqual({ secretKey: 'sk_test_mine_0123456789' });
    }
  });

  it('blocks private networks for webhooks, but for the receiver hosts WEBHOOK_ALLOWED_HOSTS names', () => {
    for (const instance of INSTANCES) {
      const config = loadConfig(environmentOf(instance, PASSWORD), []);
      expect(config.webhookBlockPrivateNetworks, instance).toBe(true);
      expect(config.webhookAllowedHosts, instance).toEqual([]);
      const named = loadConfig(
        environmentOf(instance, { ...PASSWORD, WEBHOOK_ALLOWED_HOSTS: 'receiver' }),
        [],
      );
      expect(named.webhookBlockPrivateNetworks).toBe(true);
      expect(named.webhookAllowedHosts).toEqual(['receiver']);
    }
  });

  it('writes no empty default (a dollar-brace name with :- and nothing after), which podman-compose 1.0 passes on unsubstituted', () => {
    expect(TEXT).not.toMatch(/\$\{[A-Z_]+:?-\}/);
  });
});
