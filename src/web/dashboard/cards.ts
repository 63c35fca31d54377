import type { Hono } from 'hono';
import type { DashEnv } from './session.ts';

export function registerCardPages(_app: Hono<DashEnv>): void {}
