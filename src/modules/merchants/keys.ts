import { createHash, randomInt } from 'node:crypto';

import type { KeyKind } from '../context.ts';

export type { KeyKind };

export const KEY_PREFIX: Record<KeyKind, string> = { secret: 'sk_test_', public: 'pk_test_' };
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY = /^[A-Za-z0-9_]{8,128}$/;

/** A new key: prefix + 32 base62 characters (190 bits). */
export function generateKey(kind: KeyKind): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return KEY_PREFIX[kind] + body;
}

/** Keys are high-entropy random strings, so one SHA-256 is the right hash (no password stretching). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The kind a well-formed key has by its prefix, or null when the string is not a Sandbank key. */
export function keyKindOf(key: string): KeyKind | null {
  for (const kind of ['secret', 'public'] as const) {
    const prefix = KEY_PREFIX[kind];
    if (key.startsWith(prefix) && KEY_BODY.test(key.slice(prefix.length))) return kind;
  }
  return null;
}
