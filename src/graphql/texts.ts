/** Descriptions that many fields and arguments share, written once. */

export const IDEMPOTENCY_KEY =
  'Replays the first outcome when the same mutation is sent again with this key (within 24 hours); overrides the Idempotency-Key header.';
export const REFERENCE = "The merchant's own reference: 1-100 characters of A-Z a-z 0-9 . _ : -.";
export const DESCRIPTION = 'A free-text description, up to 1000 characters.';
export const METADATA = 'Up to 50 string keys (≤ 40 characters) with string values (≤ 500 characters).';
export const CREATED_AT = 'When it was created, clock time.';
export const UPDATED_AT = 'When it last changed, clock time.';
/** An object's metadata and description fields, as stored from its create. */
export const STORED_METADATA = "The merchant's metadata: string keys and values.";
export const STORED_DESCRIPTION = 'The description given on create.';
