import { describe, expect, it } from 'vitest';
import { banner } from '../../src/start.ts';

const URL = 'http://127.0.0.1:4242';

function bannerOf(secretKey: string | null, created: boolean): string {
  return banner(
    {
      dashboardSignInUrl: `${URL}/dashboard/login/token`,
      defaultMerchant: {
        merchant: { id: 'mch_1', name: 'Demo' },
        secretKey,
        publicKey: 'pk_test_public0000001234',
        secretKeyLast4: 'abcd',
        publicKeyLast4: '1234',
        created,
      },
    },
    URL,
    'PGlite',
  );
}

describe('the start-up banner', () => {
  it('prints the keys in full whether the merchant was created now or read back', () => {
    for (const created of [true, false]) {
      const text = bannerOf('sk_test_secret000000abcd', created);
      expect(text).toContain('  Secret key sk_test_secret000000abcd\n');
      expect(text).toContain('  Public key pk_test_public0000001234\n');
      expect(text).toContain('Bearer sk_test_secret000000abcd');
    }
  });

  it('says where to get a key kept only as a hash, pointing at the sign-in link above it', () => {
    const text = bannerOf(null, false);
    expect(text).toMatch(/Secret key sk_test_…abcd \(stored only as a hash.*signing in with the link above/);
    expect(text.indexOf('Dashboard ')).toBeLessThan(text.indexOf('Secret key'));
    expect(text).not.toMatch(/link below/);
  });
});
