import { isStorableText, printable } from '../../kernel/text.ts';

/**
 * What the request log keeps of a body, a query string or a GraphQL document: the text with card
 * data and secrets masked, cut at BODY_CAP characters. The rules (docs/guide/request-log.md):
 *
 * - a card or account number (`number`, `card_number`, `account_number`, `iban`, and their camelCase
 *   twins) keeps its last four characters: `"****4242"`; the expiry month and year are kept;
 * - a card's security code (`cvc`, `cvv`, `cvc2`, `cvv2`, `security_code`) is `"***"` whatever it was;
 * - a field whose name says it holds a secret (`secret`, `password`, `api_key`, `secret_key`,
 *   `authorization`, a session, CSRF, access or refresh token) is `"[redacted]"`; a card token's id
 *   (`token: "tok_…"`) names no secret and is kept, as are routing numbers;
 * - anywhere in the text, a secret key keeps its prefix and last four (`sk_test_****Ab12`), a
 *   webhook signing secret its prefix (`whsec_****`), and a URL's `secret=`, `token=`, `api_key=` or
 *   `password=` parameter its name (a checkout link's `?secret=[redacted]`);
 * - in a query string or a GraphQL document (not a JSON body, where such values are trace numbers
 *   and the like), a run of 13 to 19 digits keeps its last four.
 *
 * Masking is done on the text, never by parsing and printing it again: amounts keep their exact
 * digits (100.50 stays 100.50), and a text without a hint of anything sensitive is kept as it is.
 */

/** The most characters of a body (or query string) the log keeps. */
export const BODY_CAP = 8192;

const PAN_KEYS = 'number|card_?number|pan|account_?number|iban';
const CODE_KEYS = 'cvc2?|cvv2?|security_?code';
const SECRET_KEYS =
  '\\w*(?:secret|password|passphrase)\\w*|api_?key|authorization|(?:session|csrf|access|refresh)_?token';
const KEYS = `${PAN_KEYS}|${CODE_KEYS}|${SECRET_KEYS}`;
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';

/** A hint that a text may hold something to mask: the test that lets most texts through untouched. */
const HINT =
  /number|pan\W|iban|cvc|cvv|security_?code|secret|password|passphrase|api_?key|authorization|token|sk_|rk_|whsec_|\d{13}/i;
/** A JSON member of a sensitive name: `"cvc": "123"`, `"number": 4242…`. */
const JSON_MEMBER = new RegExp(`"(${KEYS})"(\\s*:\\s*)(${QUOTED}|-?[0-9][0-9.eE+-]*)`, 'gi');
/** The same in a GraphQL document: `cvc: "123"`, `number: 4242…` (a name after it is an alias's field). */
const DOCUMENT_MEMBER = new RegExp(`\\b(${KEYS})(\\s*:\\s*)(${QUOTED}|[0-9][0-9.]*)`, 'gi');
/** The same in a query string: `card[cvc]=123`. */
const QUERY_MEMBER = new RegExp(`\\b(${KEYS})(\\]?=)([^&]*)`, 'gi');
const SECRET_KEY = /\b((?:sk|rk)_(?:test|live)_)\w*(\w{4})/g;
const SIGNING_SECRET = /\bwhsec_[A-Za-z0-9+/=]+/g;
/** A secret in a URL's query string: a checkout link's `?secret=…`, a `token=…`. */
const URL_SECRET = /([?&](?:\w*secret|\w*token|api_?key|password)=)[^&"#\s\\]+/gi;
const DIGIT_RUN = /\b\d{9,15}(\d{4})\b/g;

const PAN = new RegExp(`^(?:${PAN_KEYS})$`, 'i');
const CODE = new RegExp(`^(?:${CODE_KEYS})$`, 'i');

/** The last four letters or digits of a value as it stood in the text (quoted or not). */
function lastFour(value: string): string {
  const plain = value.replace(/[^A-Za-z0-9]/g, '');
  return plain.length > 4 ? `****${plain.slice(-4)}` : plain;
}

/** The mask of a member named `key`, without quotes. */
function masked(key: string, value: string): string {
  if (PAN.test(key)) return lastFour(value);
  if (CODE.test(key)) return '***';
  return '[redacted]';
}

/** Keys, signing secrets and URL secrets anywhere (each pattern only where its text occurs at all). */
function maskSecrets(text: string): string {
  let out = text;
  if (out.includes('k_test_') || out.includes('k_live_')) out = out.replace(SECRET_KEY, '$1****$2');
  if (out.includes('whsec_')) out = out.replace(SIGNING_SECRET, 'whsec_****');
  if (out.includes('=')) out = out.replace(URL_SECRET, '$1[redacted]');
  return out;
}

/** A JSON text with card data and secrets masked (it stays valid JSON). */
export function redactJson(text: string): string {
  if (!HINT.test(text)) return text;
  const members = text.replace(
    JSON_MEMBER,
    (_, key: string, colon: string, value: string) => `"${key}"${colon}"${masked(key, value)}"`,
  );
  return maskSecrets(members);
}

/** A text that may not be JSON (a body that did not parse): masked as JSON, then as a document. */
export function redactText(text: string): string {
  return redactDocument(redactJson(text));
}

/** A GraphQL document with card data and secrets masked, long digit runs too. */
export function redactDocument(text: string): string {
  if (!HINT.test(text)) return text;
  const members = text.replace(
    DOCUMENT_MEMBER,
    (_, key: string, colon: string, value: string) => `${key}${colon}"${masked(key, value)}"`,
  );
  return maskSecrets(members).replace(DIGIT_RUN, '****$1');
}

/** A query string with card data and secrets masked, long digit runs too. */
export function redactQuery(text: string): string {
  if (!HINT.test(text)) return text;
  // card%5Bcvc%5D=123 is card[cvc]=123.
  const members = text
    .replace(/%5B/gi, '[')
    .replace(/%5D/gi, ']')
    .replace(
      QUERY_MEMBER,
      (_, key: string, equals: string, value: string) => `${key}${equals}${masked(key, value)}`,
    );
  return maskSecrets(members).replace(DIGIT_RUN, '****$1');
}

/**
 * Text a text column can hold: U+0000 and lone UTF-16 surrogates become U+FFFD; cut at `cap`
 * characters (never inside a surrogate pair), then marked as cut with the length it had.
 */
export function storable(text: string, cap = BODY_CAP): string {
  const safe = isStorableText(text) ? text : printable(text);
  if (safe.length <= cap) return safe;
  const code = safe.charCodeAt(cap - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? cap - 1 : cap;
  return `${safe.slice(0, end)}… [cut: ${safe.length} characters in all]`;
}
