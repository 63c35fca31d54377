import type { ServerProcess } from './server-process.ts';

/** One message of a GraphQL-over-SSE stream (graphql-yoga's "distinct connections" mode). */
export interface SseMessage {
  event: string;
  data: string;
}

/** How an SSE stream stopped: the server ended it, the connection broke, or it was still open. */
export type SseEnd = 'ended' | 'broken' | 'open';

export interface SseSubscription {
  status: number;
  contentType: string | null;
  /** The messages received so far (pings left out). */
  messages: SseMessage[];
  /** The errors of the `next` messages received so far. */
  errors(): { message: string; extensions?: { code?: string } }[];
  /** Waits (up to `ms` of real time) for the server to end the stream; 'open' when it did not. */
  end(ms?: number): Promise<SseEnd>;
  /** Waits (up to `ms`) for a `next` message with data that `match` accepts. */
  nextData(match: (data: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** Closes the client's side (the connection goes away). */
  close(): void;
}

/**
 * A GraphQL subscription over HTTP as a client of graphql-yoga's SSE transport opens it: a POST of
 * /graphql with `Accept: text/event-stream`, read as the server writes it. Resolves once the
 * response's headers have arrived (the server has then subscribed, or answered with an error).
 */
export async function subscribeOverSse(
  server: ServerProcess,
  options: { key?: string; headers?: Record<string, string>; query?: string },
): Promise<SseSubscription> {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query: options.query ?? 'subscription { events { id type objectId } }' }),
  });
  const messages: SseMessage[] = [];
  let wake: () => void = () => {};
  let changed = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const notify = () => {
    wake();
    changed = new Promise<void>((resolve) => {
      wake = resolve;
    });
  };
  let buffer = '';
  let state: SseEnd = 'open';
  void (async () => {
    const reader = res.body?.getReader();
    if (!reader) return;
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = block.split('\n').filter((line) => !line.startsWith(':'));
          if (lines.length === 0) continue; // a ping
          const field = (name: string) =>
            lines
              .filter((line) => line.startsWith(`${name}:`))
              .map((line) => line.slice(name.length + 1).trimStart())
              .join('\n');
          messages.push({ event: field('event'), data: field('data') });
          notify();
        }
      }
      state = 'ended';
    } catch {
      state = abort.signal.aborted ? 'open' : 'broken';
    }
    notify();
  })();

  const within = async <T>(ms: number, check: () => T | undefined): Promise<T | undefined> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([changed, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  };
  const nextPayloads = () =>
    messages
      .filter((message) => message.event === 'next')
      .map((message) => JSON.parse(message.data) as { data?: unknown; errors?: [] });

  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    messages,
    errors: () => nextPayloads().flatMap((payload) => payload.errors ?? []),
    async end(ms = 5_000) {
      return (await within(ms, () => (state === 'open' ? undefined : state))) ?? 'open';
    },
    async nextData(match, ms = 10_000) {
      const found = await within(ms, () =>
        nextPayloads()
          .map((payload) => payload.data as Record<string, unknown> | null | undefined)
          .find((data) => data && match(data)),
      );
      if (!found) throw new Error(`no matching message within ${ms} ms; got ${JSON.stringify(messages)}`);
      return found;
    },
    close() {
      abort.abort();
    },
  };
}
