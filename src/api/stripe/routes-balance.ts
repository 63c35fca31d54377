import type { Hono } from 'hono';
import type { StripeEnv } from './app.ts';

export function mountBalance(_app: Hono<StripeEnv>): void {}
