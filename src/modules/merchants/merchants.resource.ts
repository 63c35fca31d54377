import { z } from 'zod';
import { type Wire, wireAnswer, wireResource } from '../../kernel/wire-resources.ts';
import type { KeyPair, MerchantWithKeys } from './merchants.service.ts';

const secretKey = z.string().meta({
  description:
    "The secret key (sk_test_…): in this answer, and on the dashboard's API keys page (Reveal) while it is in use.",
});
const publicKey = z
  .string()
  .meta({ description: 'The public key (pk_test_…): may only tokenize cards, from a browser.' });

export const MerchantWithKeysWire = wireResource(
  'MerchantWithKeys',
  'merchant',
  'A new sandbox merchant with its key pair, answered once by the sign-up.',
  {
    name: z.string().meta({ description: "The merchant's name." }),
    secret_key: secretKey,
    public_key: publicKey,
  },
);

export const ApiKeysWire = wireAnswer('api_keys', {
  secret_key: secretKey,
  public_key: publicKey,
}).meta({
  id: 'ApiKeys',
  description: "A merchant's new key pair, answered once by a key roll (the previous keys are revoked).",
});

/** The sign-up's answer: the merchant and its keys. */
export function merchantWithKeysResource(created: MerchantWithKeys): Wire<typeof MerchantWithKeysWire> {
  return {
    id: created.merchant.id,
    object: 'merchant',
    name: created.merchant.name,
    secret_key: created.secretKey,
    public_key: created.publicKey,
  };
}

/** A key roll's answer: the new pair. */
export function apiKeysResource(keys: KeyPair): Wire<typeof ApiKeysWire> {
  return { object: 'api_keys', secret_key: keys.secretKey, public_key: keys.publicKey };
}
