import type { Hono } from 'hono';
import type { StripeEnv } from './app.ts';

export function mountCheckout(_app: Hono<StripeEnv>): void {}
