import type { Hono } from 'hono';
import type { StripeEnv } from './app.ts';

export function mountEvents(_app: Hono<StripeEnv>): void {}
