import type { Hono } from 'hono';
import type { DashEnv } from './session.ts';

export function registerTransactionPages(_app: Hono<DashEnv>): void {}
