import { TokenBucket } from 'limiter';
import { SandbankError } from '../../kernel/errors.ts';

const MAX_ADDRESSES = 10_000;

/**
 * The keyless sign-up's cap (POST /v1/merchants and the dashboard's form): each client address may
 * create `perMinute` merchants in any minute (a bucket that refills continuously), so one client
 * cannot fill the database with merchants. Counted per instance, by the connection's address.
 */
export class SignupLimiter {
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(readonly perMinute: number) {}

  /** Takes one sign-up for the address, or throws 429 rate_limited with the seconds to wait. */
  take(address: string): void {
    if (this.perMinute <= 0) return;
    let bucket = this.#buckets.get(address);
    if (!bucket) {
      if (this.#buckets.size >= MAX_ADDRESSES) this.#buckets.clear();
      bucket = new TokenBucket({
        bucketSize: this.perMinute,
        tokensPerInterval: this.perMinute,
        interval: 'minute',
      });
      bucket.content = this.perMinute;
      this.#buckets.set(address, bucket);
    }
    if (!bucket.tryRemoveTokens(1)) {
      const seconds = Math.max(1, Math.ceil(bucket.getWaitTime(1) / 1000));
      throw new SandbankError('rate_limited', {
        message: `This address signed up ${this.perMinute} merchants in the last minute; retry in ${seconds} s.`,
      });
    }
  }
}
