import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { DeliverySlots, type SlotLimits } from './delivery-slots.ts';

/**
 * How webhook deliveries reach receivers. Local receivers (`http://localhost:3000/hook`) are the
 * common case and allowed by default; with `WEBHOOK_BLOCK_PRIVATE_NETWORKS=true` every address a
 * receiver's host resolves to must be public unicast. The check runs inside the connector, on the
 * addresses the socket is then opened to, so a name that resolves to a public address when the
 * endpoint is created and to 127.0.0.1 later (DNS rebinding) is still refused. The hosts an operator
 * names in `allowedHosts` (WEBHOOK_ALLOWED_HOSTS: a receiver container on the stack's network) are
 * the exception: a URL whose host is exactly one of them is delivered wherever it resolves.
 */
export interface WebhookNetworkPolicy {
  blockPrivateNetworks: boolean;
  /** Host names or IP addresses delivered to although private (compared as normalizeHost does). */
  allowedHosts?: readonly string[];
}

/** A URL's host as the allow-list compares it: lower case, no IPv6 brackets, no trailing dot. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** The range an address falls in when deliveries may not go there (ipaddr.js names), else null. */
export function blockedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  // process() unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1 is loopback, not "ipv4Mapped").
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range !== 'unicast') return range;
  // ::/96, "IPv4-compatible" IPv6 (deprecated by RFC 4291): ::7f00:1 reaches 127.0.0.1 on stacks
  // that still route it, and ipaddr.js calls it unicast. Nothing public lives there.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0))
    return 'ipv4Compatible';
  return null;
}

export class BlockedAddressError extends Error {
  constructor(host: string, address: string, range: string) {
    super(
      `WEBHOOK_BLOCK_PRIVATE_NETWORKS: ${host} resolves to ${address} (${range}); only public addresses are allowed`,
    );
    this.name = 'BlockedAddressError';
  }
}

type Resolve = (host: string) => Promise<string[]>;

const resolveAll: Resolve = async (host) =>
  isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

type Connector = ReturnType<typeof buildConnector>;

/**
 * A connector that resolves the host itself, refuses non-public addresses and connects to the one
 * it checked; a host named in `allowedHosts` is connected to as it is.
 */
export function guardedConnector(
  resolve: Resolve = resolveAll,
  allowedHosts: readonly string[] = [],
): Connector {
  const connect = buildConnector({});
  const allowed = new Set(allowedHosts.map(normalizeHost));
  return (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (allowed.has(normalizeHost(host))) return connect(options, callback);
    resolve(host).then(
      (addresses) => {
        if (addresses.length === 0) return callback(new Error(`${host} did not resolve`), null);
        for (const address of addresses) {
          const range = blockedRange(address);
          if (range) return callback(new BlockedAddressError(host, address, range), null);
        }
        // The TLS server name still comes from the URL's host (undici reads it from options.host).
        connect({ ...options, hostname: addresses[0]! }, callback);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}

export interface WebhookRequest {
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The limit is the shorter one of an endpoint on a failure streak (said in the timeout's error). */
  shortened?: boolean;
  /** How much of the response body to keep. */
  responseCap: number;
}

/**
 * How long an attempt may take and how many may be in flight at once (the slots'
 * limits, delivery-slots.ts). Attempts are bounded per endpoint and per merchant so that one
 * merchant's slow receivers never hold every slot.
 */
export interface DeliveryLimits extends SlotLimits {
  /** An attempt's limit (the whole exchange), ms. */
  timeoutMs: number;
  /** The shorter limit of an endpoint whose last `failingStreak` attempts or more all failed, ms. */
  failingTimeoutMs: number;
  /** Consecutive failed attempts (an error, a timeout or a non-2xx answer) that shorten the limit. */
  failingStreak: number;
}

export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = {
  timeoutMs: 15_000,
  failingTimeoutMs: 3_000,
  failingStreak: 3,
  concurrency: 64,
  perMerchant: 8,
  perEndpoint: 4,
};

/** An attempt that got no complete answer within its limit. */
export class WebhookTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly shortened: boolean,
  ) {
    super(
      shortened
        ? `no answer within ${timeoutMs} ms (limit shortened after consecutive failures)`
        : `no answer within ${timeoutMs} ms`,
    );
    this.name = 'WebhookTimeoutError';
  }
}

/** Endpoints remembered with a failure streak at most (the oldest is forgotten first). */
const MAX_STREAKS = 10_000;

function agentFor(policy: WebhookNetworkPolicy, resolve?: Resolve): Agent {
  return new Agent(
    policy.blockPrivateNetworks ? { connect: guardedConnector(resolve, policy.allowedHosts) } : {},
  );
}

/**
 * How one process sends webhook deliveries: one undici Agent (its connection pool) under the network
 * policy. server.ts makes one from the configuration and hands it to every context and to the
 * delivery pump; a test makes its own.
 */
export class WebhookTransport {
  #agent: Agent;
  readonly limits: DeliveryLimits;
  readonly slots: DeliverySlots;
  /** Consecutive failed attempts by endpoint (endpoints whose last attempt succeeded are absent). */
  readonly #streaks = new Map<string, number>();

  constructor(
    policy: WebhookNetworkPolicy = { blockPrivateNetworks: false },
    resolve?: Resolve,
    limits: Partial<DeliveryLimits> = {},
  ) {
    this.#agent = agentFor(policy, resolve);
    this.limits = { ...DEFAULT_DELIVERY_LIMITS, ...limits };
    this.slots = new DeliverySlots(this.limits);
  }

  /** The limit of the next attempt to this endpoint: shorter while its failure streak lasts. */
  timeoutFor(endpointId: string): { timeoutMs: number; shortened: boolean } {
    const shortened = (this.#streaks.get(endpointId) ?? 0) >= this.limits.failingStreak;
    return {
      timeoutMs: shortened
        ? Math.min(this.limits.failingTimeoutMs, this.limits.timeoutMs)
        : this.limits.timeoutMs,
      shortened,
    };
  }

  /** Counts an attempt to the endpoint into its failure streak; a success ends the streak. */
  noteAttempt(endpointId: string, ok: boolean): void {
    if (ok) {
      this.#streaks.delete(endpointId);
      return;
    }
    const streak = (this.#streaks.get(endpointId) ?? 0) + 1;
    this.#streaks.delete(endpointId); // re-inserted last: the map's order is the eviction order
    this.#streaks.set(endpointId, streak);
    if (this.#streaks.size > MAX_STREAKS) {
      const oldest = this.#streaks.keys().next().value;
      if (oldest !== undefined) this.#streaks.delete(oldest);
    }
  }

  /** Sets the policy of every later delivery (its connections are closed once idle). */
  usePolicy(policy: WebhookNetworkPolicy, resolve?: Resolve): void {
    const previous = this.#agent;
    this.#agent = agentFor(policy, resolve);
    void previous.close().catch(() => undefined);
  }

  /**
   * One POST through undici's dispatcher API (lighter than fetch: no WHATWG streams or Headers
   * objects per request). Redirects are not followed: a 3xx is an answer like any other. The whole
   * exchange is bounded by `timeoutMs`; the response body is read up to `responseCap` bytes.
   */
  async send(url: string, request: WebhookRequest): Promise<{ status: number; body: string }> {
    const target = new URL(url);
    const signal = AbortSignal.timeout(request.timeoutMs);
    const chunks: Buffer[] = [];
    let status: number;
    try {
      const response = await this.#agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal,
      });
      status = response.statusCode;
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= request.responseCap) break; // leaving the loop destroys the rest of the body
      }
    } catch (error) {
      if (signal.aborted) throw new WebhookTimeoutError(request.timeoutMs, request.shortened === true);
      throw error;
    }
    return {
      status,
      // Postgres text cannot hold U+0000: a receiver's NUL bytes must not break the attempt log.
      body: Buffer.concat(chunks)
        .toString('utf8')
        .slice(0, request.responseCap)
        // A cut in the middle of a surrogate pair would leave half a character Postgres refuses.
        .toWellFormed()
        .replaceAll('\u0000', '\uFFFD'),
    };
  }
}
