import { z } from 'zod';
import { SandbankError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/pagination.ts';
import { listQuerySchema } from '../../kernel/pagination.ts';
import { dbOf, type ServiceContext } from '../context.ts';
import { defineOperation, type FileAnswer } from '../operation.ts';
import { nachaText } from './ach-files.nacha.ts';
import { achFileIds, readAchFile } from './ach-files.read.ts';
import { AchFile, type AchFileView, achFileView } from './ach-files.resource.ts';

/** The ACH file operations, each declared once: its REST route and its GraphQL field. */

const TAGS = ['Statements'];
const idParam = z.object({
  id: z.string().min(1).max(255).describe("The file's id (achf_sent_…, achf_returns_…, achf_received_…)."),
});

export async function getAchFile(ctx: ServiceContext, id: string): Promise<AchFileView> {
  return achFileView(id, await readAchFile(dbOf(ctx), ctx.merchant, id));
}

/** A page of the merchant's ACH files, newest first (their ids are the cursor). */
export async function listAchFiles(
  ctx: ServiceContext,
  query: { limit: number; starting_after?: string | undefined },
): Promise<Page<AchFileView>> {
  const ids = await achFileIds(dbOf(ctx), ctx.merchant.id);
  const after = query.starting_after ? ids.indexOf(query.starting_after) : -1;
  if (query.starting_after && after < 0)
    throw new SandbankError('parameter_invalid', {
      param: 'starting_after',
      message: 'starting_after is not the id of one of your ACH files (pass a next_cursor).',
    });
  const from = after + 1;
  const page = ids.slice(from, from + query.limit);
  const data = await Promise.all(page.map((id) => getAchFile(ctx, id)));
  const hasMore = from + query.limit < ids.length;
  return { data, hasMore, nextCursor: hasMore ? (page.at(-1) ?? null) : null };
}

export async function achFileText(ctx: ServiceContext, id: string): Promise<FileAnswer> {
  const view = await getAchFile(ctx, id);
  return { body: nachaText(view.file), contentType: 'text/plain; charset=utf-8', filename: `${id}.ach` };
}

export const achFileOperations = [
  defineOperation({
    name: 'listAchFiles',
    method: 'get',
    path: '/ach_files',
    tags: TAGS,
    summary: "List the merchant's ACH files (NACHA), newest first",
    query: listQuerySchema,
    output: AchFile,
    list: true,
    run: (ctx, { query }) => listAchFiles(ctx, query),
    // GraphQL's achFiles is written by hand (ach-files.graphql.ts): a list, not a connection.
    graphql: false,
  }),
  defineOperation({
    name: 'getAchFile',
    method: 'get',
    path: '/ach_files/{id}',
    tags: TAGS,
    summary: 'Retrieve an ACH file: its kind, window or day and controls',
    params: idParam,
    output: AchFile,
    run: (ctx, { params }) => getAchFile(ctx, params.id),
    graphql: { name: 'achFile' },
  }),
  defineOperation({
    name: 'downloadAchFile',
    method: 'get',
    path: '/ach_files/{id}/file',
    tags: TAGS,
    summary: 'Download an ACH file in the NACHA format',
    description:
      '94-character records: file header, batch headers and controls, entry details and addenda, file control, padded with nines to blocks of ten.',
    params: idParam,
    output: AchFile,
    file: { mediaTypes: ['text/plain; charset=utf-8'] },
    run: (ctx, { params }) => achFileText(ctx, params.id),
    graphql: false,
  }),
];
