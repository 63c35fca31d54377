/** The handler's options: how it calls Sandbank (api, key), the endpoint secret, where it listens. */
export interface HandlerOptions {
  api: string;
  key: string;
  secret: string;
  port?: number;
  host?: string;
  log?: (line: string) => void;
}

export interface RunningHandler {
  /** Where it receives deliveries (http://127.0.0.1:port/webhooks). */
  url: string;
  close(): Promise<void>;
}

export function startHandler(options: HandlerOptions): Promise<RunningHandler>;
