import type { Hono } from 'hono';
import { html } from 'hono/html';
import { SandbankError } from '../../kernel/errors.ts';
import {
  listSnapshots,
  restoreSnapshot,
  type SnapshotRow,
  saveSnapshot,
} from '../../modules/sandbox/sandbox.snapshots.ts';
import { type DashContext, type DashEnv, dashboardContext, formOf } from './session.ts';
import { csrfField, setFlash } from './ui.ts';

/**
 * The keys page's "Snapshots" card (POST forms, with the CSRF token every dashboard form has): save
 * the merchant's sandbox under a name, or restore one, as POST /v1/sandbox/snapshots and
 * …/{name}/restore do; then back to the keys page, which says what happened.
 */
export function registerSnapshotActions(app: Hono<DashEnv>): void {
  const act = (path: string, run: (c: DashContext, name: string) => Promise<string>) =>
    app.post(path, async (c) => {
      const form = await formOf(c);
      try {
        setFlash(c, { notice: await run(c, String(form.name ?? '')) });
      } catch (error) {
        if (!(error instanceof SandbankError) || error.status >= 500) throw error;
        setFlash(c, { error: error.message });
      }
      return c.redirect('/dashboard/keys#snapshots', 303);
    });
  act('/snapshots', async (c, name) => {
    const saved = await saveSnapshot(await dashboardContext(c), name);
    return `Snapshot ${saved.name} saved (${rows(saved)} rows).`;
  });
  act('/snapshots/restore', async (c, name) => {
    const restored = await restoreSnapshot(await dashboardContext(c), name);
    return `Snapshot ${restored.name} restored: the sandbox is as it was saved, its clock too.`;
  });
}

const rows = (snapshot: SnapshotRow) => Object.values(snapshot.counts).reduce((sum, n) => sum + n, 0);

/** The merchant's snapshots, each with a Restore button, and the form that saves one. */
export async function snapshotsCard(c: DashContext) {
  const snapshots = await listSnapshots(await dashboardContext(c));
  return html`<section class="card" id="snapshots">
  <h2>Snapshots</h2>
  <p>Saves this merchant's whole sandbox — objects, balances and the ledger, events, scheduled work, webhook
  endpoints and the clock — under a name, to put it back later in one step (see docs/guide/snapshots.md).
  Restoring deletes what was made since.</p>
  <form method="post" action="/dashboard/snapshots">${csrfField(c)}
    <label>Name <input name="name" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]*" data-testid="snapshot-name"></label>
    <button type="submit" data-testid="save-snapshot">Save snapshot</button>
  </form>
  ${
    snapshots.length === 0
      ? html`<p class="muted" data-testid="no-snapshots">No snapshots yet.</p>`
      : html`<table data-testid="snapshots"><thead><tr><th>Name</th><th>Rows</th><th>Saved</th><th></th></tr></thead><tbody>${snapshots.map(
          (
            s,
          ) => html`<tr><td><code>${s.name}</code></td><td>${rows(s)}</td><td>${s.createdAt.toISOString()}</td><td>
  <form method="post" action="/dashboard/snapshots/restore" class="inline">${csrfField(c)}<input type="hidden" name="name" value="${s.name}"><button type="submit" class="secondary" data-testid="restore-snapshot-${s.name}">Restore</button></form></td></tr>`,
        )}</tbody></table>`
  }
</section>`;
}
