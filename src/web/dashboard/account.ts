import type { Hono } from 'hono';
import { html } from 'hono/html';
import { clientAddress } from '../../http/client-address.ts';
import { systemClock } from '../../kernel/clock.ts';
import { SandbankError } from '../../kernel/errors.ts';
import { getChaosSetting } from '../../modules/chaos/chaos.service.ts';
import {
  endSession,
  signInNewMerchant,
  signInWithKey,
  signInWithLink,
} from '../../modules/dashboard/dashboard.service.ts';
import { activeKeys, rollKeys, signUp } from '../../modules/merchants/merchants.service.ts';
import { chaosCard } from './chaos.ts';
import { fixturesCard } from './fixtures.ts';
import { publicShell, shell } from './layout.ts';
import { RESET_CONFIRMATION } from './reset.ts';
import {
  clearSessionCookie,
  type DashContext,
  type DashEnv,
  dashboardContext,
  dashboardPath,
  formOf,
  setSessionCookie,
} from './session.ts';
import { snapshotsCard } from './snapshots.ts';
import { csrfField, setFlash, takeFlash, when } from './ui.ts';

/**
 * Signing in and out, signing up, and the API keys page. Secret keys are kept whole in the database
 * (beside the hash they are looked up by; see docs/internals/secret-keys.md), so any signed-in session of the
 * merchant can reveal the key in use, on every instance and after a restart. A key made before they
 * were kept has only its hash: the page says so and offers rolling.
 */

/** Signing in again in a browser that has a session ends that session first. */
async function endCurrentSession(c: DashContext): Promise<void> {
  const token = c.get('sessionToken');
  if (!token) return;
  await endSession(c.get('deps').database.db, systemClock, token);
}

function signInPage(c: DashContext, error: string | null, next: string) {
  return publicShell(
    c,
    'Sign in to the dashboard',
    html`<section class="card">
  ${error ? html`<div class="error" role="alert" data-testid="sign-in-error">${error}</div>` : ''}
  <form method="post" action="/dashboard/login">
    ${csrfField(c)}
    <input type="hidden" name="next" value="${next}">
    <label for="key">Secret key</label>
    <input id="key" name="key" autocomplete="off" placeholder="sk_test_…" required data-testid="sign-in-key">
    <button type="submit" data-testid="sign-in">Sign in</button>
  </form>
  <p class="muted">Or open the one-time sign-in link the server printed when it started. No merchant yet?
  <a href="/dashboard/signup">Sign up</a> for a new sandbox merchant.</p>
</section>`,
  );
}

function keysOnce(keys: Record<string, string>) {
  return html`<section class="card keys-once" data-testid="keys-once">
  <h2>Your keys</h2>
  <p>Copy the secret key now. <em>Reveal secret key</em> on this page shows it again while it is in use.</p>
  <dl class="details"><dt>Secret key</dt><dd><code data-testid="secret-key">${keys.secret_key}</code></dd>
  <dt>Public key</dt><dd><code data-testid="public-key">${keys.public_key}</code></dd></dl>
</section>`;
}

export function registerAccountPages(app: Hono<DashEnv>): void {
  app.get('/login', (c) => {
    if (c.get('session')) return c.redirect('/dashboard');
    return signInPage(c, null, dashboardPath(c.req.query('next')));
  });

  app.post('/login', async (c) => {
    const form = await formOf(c);
    const next = dashboardPath(form.next);
    try {
      const { token } = await signInWithKey(c.get('deps').database.db, systemClock, form.key ?? '');
      await endCurrentSession(c);
      setSessionCookie(c, token);
      return c.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      c.status(401);
      const message =
        error.code === 'secret_key_required'
          ? 'That is a public key: the dashboard needs the secret key (sk_test_…).'
          : 'That key is unknown or revoked.';
      return signInPage(c, message, next);
    }
  });

  app.get('/login/:token', async (c) => {
    try {
      const { token } = await signInWithLink(c.get('deps').database.db, systemClock, c.req.param('token'));
      await endCurrentSession(c);
      setSessionCookie(c, token);
      return c.redirect('/dashboard', 303);
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      c.status(401);
      return signInPage(
        c,
        'This sign-in link is unknown, used or expired. Sign in with the secret key.',
        '/dashboard',
      );
    }
  });

  app.post('/logout', async (c) => {
    const token = c.get('sessionToken');
    if (token) {
      await endSession(c.get('deps').database.db, systemClock, token);
    }
    clearSessionCookie(c);
    return c.redirect('/dashboard/login', 303);
  });

  app.get('/signup', (c) =>
    publicShell(
      c,
      'Sign up for a sandbox merchant',
      html`<section class="card">
  <form method="post" action="/dashboard/signup">
    ${csrfField(c)}
    <label for="name">Business name</label>
    <input id="name" name="name" maxlength="100" required data-testid="signup-name">
    <button type="submit" data-testid="signup">Create the merchant</button>
  </form>
  <p class="muted">A new isolated sandbox: its own keys, clock, balances and webhooks. <a href="/dashboard/login">Sign in</a> instead.</p>
</section>`,
    ),
  );

  app.post('/signup', async (c) => {
    const form = await formOf(c);
    const db = c.get('deps').database.db;
    try {
      // The form's name is judged by signUp's own check (1-100 characters once trimmed); a missing
      // one is an empty one.
      const created = await signUp(
        db,
        systemClock,
        { name: form.name ?? '' },
        { signups: c.get('deps').signups, address: clientAddress(c) },
      );
      const { token } = await signInNewMerchant(db, systemClock, created.merchant);
      await endCurrentSession(c);
      setSessionCookie(c, token);
      c.set('sessionToken', token);
      setFlash(c, {
        notice: `Welcome, ${created.merchant.name}.`,
        once: { secret_key: created.secretKey, public_key: created.publicKey },
      });
      return c.redirect('/dashboard/keys', 303);
    } catch (error) {
      if (!(error instanceof SandbankError)) throw error;
      c.status(error.status as 400 | 429);
      return publicShell(
        c,
        'Sign up for a sandbox merchant',
        html`<div class="error" role="alert">${error.message}</div><p><a href="/dashboard/signup">Try again</a></p>`,
      );
    }
  });

  app.get('/keys', async (c) => keysPage(c, false));
  app.post('/keys/reveal', async (c) => keysPage(c, true));

  // A signed-in session rolls with its CSRF token alone: it could reveal the key anyway, and a key
  // that cannot be revealed (made before keys were kept) is the one its owner may have lost.
  app.post('/keys/roll', async (c) => {
    const session = c.get('session');
    const token = c.get('sessionToken');
    if (!session || !token) return c.redirect('/dashboard/login', 303);
    const keys = await rollKeys(c.get('deps').database.db, systemClock, session.merchant.id, {
      keepSession: token,
    });
    setFlash(c, {
      notice: 'New keys issued; the old ones are revoked.',
      once: { secret_key: keys.secretKey, public_key: keys.publicKey },
    });
    return c.redirect('/dashboard/keys', 303);
  });
}

async function keysPage(c: DashContext, reveal: boolean): Promise<Response> {
  const session = c.get('session');
  const token = c.get('sessionToken');
  if (!session || !token) return c.redirect('/dashboard/login', 303);
  const flash = takeFlash(c);
  const keys = await activeKeys(c.get('deps').database.db, session.merchant.id);
  const secret = keys.find((k) => k.kind === 'secret');
  const publicKey = keys.find((k) => k.kind === 'public');
  // The key in use, when it was made since secret keys are kept whole (null for an older one).
  const known = secret?.secretKey ?? null;
  const chaos = await getChaosSetting(await dashboardContext(c));
  // The page may hold a secret key: no cache, shared or private, keeps it.
  c.header('Cache-Control', 'no-store');
  return shell(
    c,
    { title: 'API keys', active: 'keys', flash: flash ? { ...flash, once: undefined } : null },
    html`${flash?.once?.secret_key ? keysOnce(flash.once) : ''}
<section class="card">
  <dl class="details">
    <dt>Public key</dt>
    <dd><code data-testid="public-key-shown">${publicKey?.publicKey ?? `pk_test_…${publicKey?.last4 ?? '????'}`}</code></dd>
    <dt>Secret key</dt>
    <dd>${
      reveal && known
        ? html`<code data-testid="secret-key-revealed">${known}</code>`
        : html`<code data-testid="secret-key-masked">sk_test_••••••••${secret?.last4 ?? '????'}</code>`
    }
    ${
      reveal && !known
        ? html`<p class="muted" data-testid="reveal-unavailable">This secret key was made before Sandbank kept secret keys for Reveal: only its hash is stored, so it cannot be shown again. Roll the keys below: the new secret key can be revealed here at any time.</p>`
        : ''
    }</dd>
    <dt>Issued</dt><dd>${when(secret?.createdAt)}</dd>
  </dl>
  <div class="actions">
    ${
      reveal
        ? ''
        : html`<form method="post" action="/dashboard/keys/reveal" class="inline">${csrfField(c)}<button type="submit" class="secondary" data-testid="reveal-secret">Reveal secret key</button></form>`
    }
  </div>
</section>
<section class="card">
  <h2>Roll keys</h2>
  <form method="post" action="/dashboard/keys/roll">${csrfField(c)}
    <button type="submit" class="danger" data-testid="roll-keys">Roll keys</button>
  </form>
  <p class="muted">Rolling issues a new pair and revokes the old keys at once: API clients using them get 401, live
  subscriptions opened with them close, and every other dashboard session of this merchant is signed out.</p>
</section>
<section class="card" id="reset">
  <h2>Reset sandbox data</h2>
  <p>Deletes every object of this merchant — collections, payments, refunds, tokens, transfers, payouts, virtual
  cards, FX, balances and the ledger, events, webhook deliveries, scheduled work, idempotency keys — and puts
  its clock back to real time. The merchant, its API keys, this session and its webhook endpoints (with their
  signing secrets) are kept. It cannot be undone.</p>
  <form method="post" action="/dashboard/reset">${csrfField(c)}
    <label><input type="checkbox" name="confirm" value="${RESET_CONFIRMATION}" required data-testid="reset-confirm">
    I understand that every object of this merchant is deleted</label>
    <button type="submit" class="danger" data-testid="reset-sandbox">Reset sandbox data</button>
  </form>
</section>
${await snapshotsCard(c)}
${fixturesCard(c, flash)}
${chaosCard(c, chaos)}`,
  );
}
