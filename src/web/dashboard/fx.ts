import type { Hono } from 'hono';
import type { DashEnv } from './session.ts';

export function registerFxPages(_app: Hono<DashEnv>): void {}
