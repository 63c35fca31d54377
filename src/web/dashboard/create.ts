import type { Hono } from 'hono';
import type { DashEnv } from './session.ts';

export function registerCreatePages(_app: Hono<DashEnv>): void {}
