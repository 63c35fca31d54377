/*
 * Sandbank dashboard behaviour. Served as a file (the Content-Security-Policy forbids inline
 * script); it finds its work through data-* attributes and never inserts text as HTML except the
 * fragments the dashboard's own server rendered (and escaped).
 */
(() => {
  const pending = new Map();

  /** Reloads a server-rendered fragment (debounced: a burst of events fetches it once). */
  function schedule(part) {
    if (pending.has(part)) return;
    const timer = setTimeout(async () => {
      pending.delete(part);
      try {
        const response = await fetch(part.getAttribute('data-live-refresh'), {
          credentials: 'same-origin',
          headers: { Accept: 'text/html' },
        });
        if (!response.ok) return;
        part.innerHTML = await response.text(); // the dashboard's own escaped fragment
        part.setAttribute('data-live-refreshed', String(Date.now()));
      } catch {
        // a later event refreshes it again
      }
    }, 150);
    pending.set(part, timer);
  }

  /** The fragments that follow this object (data-live-for) or every change of their kind. */
  function refreshAll(objectId, source) {
    for (const part of document.querySelectorAll('[data-live-refresh]')) {
      const only = part.getAttribute('data-live-for');
      const on = part.getAttribute('data-live-on') || 'transaction';
      if (only && only !== objectId) continue;
      if (on !== 'any' && on !== source) continue;
      schedule(part);
    }
  }

  function onUpdate(update) {
    for (const badge of document.querySelectorAll('[data-live-state]')) {
      if (badge.getAttribute('data-live-state') !== update.id) continue;
      badge.textContent = update.state;
      badge.className = `badge state-${update.state.replace(/[^a-z_]/g, '')}`;
    }
    refreshAll(update.id, 'transaction');
  }

  /**
   * A fragment that is waiting for work no event announces (a webhook attempt due soon) carries
   * [data-live-poll-ms]: it is fetched again that often while the marker is there.
   */
  function startPolling() {
    const loaded = Date.now();
    setInterval(() => {
      for (const part of document.querySelectorAll('[data-live-refresh]')) {
        const marker = part.querySelector('[data-live-poll-ms]');
        if (!marker) continue;
        const every = Number(marker.getAttribute('data-live-poll-ms')) || 2000;
        const last = Number(part.getAttribute('data-live-refreshed')) || loaded;
        if (Date.now() - last >= every) schedule(part);
      }
    }, 500);
  }

  /** Live updates over graphql-ws: the connection authenticates with the session cookie. */
  function startLive() {
    if (document.body.getAttribute('data-live') !== 'on' || !window.graphqlWs) return;
    const status = document.querySelector('[data-live-status]');
    const client = window.graphqlWs.createClient({
      url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
      lazy: false,
      retryAttempts: 1000,
      connectionParams: { dashboard: true },
      on: {
        connected: () => {
          status?.classList.add('on');
          document.body.setAttribute('data-live-connected', 'true');
        },
        closed: () => {
          status?.classList.remove('on');
          document.body.removeAttribute('data-live-connected');
        },
      },
    });
    const ignore = () => {};
    client.subscribe(
      { query: 'subscription { transactionUpdated { id kind state } }' },
      {
        next: (message) => {
          const update = message?.data?.transactionUpdated;
          if (update) onUpdate(update);
        },
        error: ignore,
        complete: ignore,
      },
    );
    client.subscribe(
      { query: 'subscription { events { id type objectId } }' },
      {
        next: (message) => {
          const event = message?.data?.events;
          if (event) refreshAll(event.objectId, 'event');
        },
        error: ignore,
        complete: ignore,
      },
    );
  }

  /** Countdowns to a clock instant (an FX quote's expiry): they tick only while the clock runs. */
  function startCountdowns() {
    const items = document.querySelectorAll('[data-countdown-ms]');
    if (items.length === 0) return;
    const started = Date.now();
    const tick = () => {
      for (const item of items) {
        let left = Number(item.getAttribute('data-countdown-ms'));
        if (item.getAttribute('data-countdown-running') === 'true') left -= Date.now() - started;
        if (left <= 0) {
          item.textContent = 'expired';
          continue;
        }
        const seconds = Math.floor(left / 1000);
        const h = Math.floor(seconds / 3600);
        const m = Math.floor((seconds % 3600) / 60);
        const s = seconds % 60;
        const pad = (n) => (n < 10 ? `0${n}` : String(n));
        item.textContent = h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
      }
    };
    tick();
    setInterval(tick, 1000);
  }

  /** Links that fill form fields (test cards, magic accounts): data-fill='{"field":"value"}'. */
  function startFillers() {
    document.addEventListener('click', (event) => {
      const target = event.target.closest?.('[data-fill]');
      if (!target) return;
      event.preventDefault();
      const form = document.getElementById(target.getAttribute('data-fill-form'));
      if (!form) return;
      const values = JSON.parse(target.getAttribute('data-fill'));
      for (const [name, value] of Object.entries(values)) {
        if (form.elements[name]) form.elements[name].value = value;
      }
    });
  }

  function start() {
    startLive();
    startPolling();
    startCountdowns();
    startFillers();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
