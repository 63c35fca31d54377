import type { Hono } from 'hono';
import type { DashEnv } from './session.ts';

export function registerWebhookPages(_app: Hono<DashEnv>): void {}
