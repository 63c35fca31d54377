import type { Hono } from 'hono';
import type { StripeEnv } from './app.ts';

export function mountCustomers(_app: Hono<StripeEnv>): void {}
