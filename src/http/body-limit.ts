import { SandbankError } from '../kernel/errors.ts';

/**
 * The largest request body the server reads, on every surface: a REST JSON body, a GraphQL request,
 * a graphql-ws message and a dashboard form (a bigger one is a 413).
 */
export const MAX_BODY_BYTES = 64 * 1024;

async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new SandbankError('payload_too_large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A request's body as text, at most MAX_BODY_BYTES (413 payload_too_large beyond). With a
 * Content-Length (checked here, and enforced by the HTTP parser) it is read in one piece, which the
 * Node adapter does straight from the socket without building a web Request; a chunked body is
 * streamed and cut off at the limit.
 */
export async function readBodyText(request: Request, contentLength: string | undefined): Promise<string> {
  const declared = Number(contentLength ?? 'NaN');
  if (declared > MAX_BODY_BYTES) throw new SandbankError('payload_too_large');
  if (Number.isInteger(declared)) return declared === 0 ? '' : request.text();
  const stream = request.body;
  return stream ? readCapped(stream, MAX_BODY_BYTES) : '';
}
