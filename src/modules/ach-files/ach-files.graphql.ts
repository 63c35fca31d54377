import { builder } from '../../graphql/builder.ts';
import { serviceContext } from '../../graphql/context.ts';
import { graphqlObject } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { MAX_PAGE_LIMIT } from '../../kernel/pagination.ts';
import { nachaText } from './ach-files.nacha.ts';
import { achFileOperations, listAchFiles } from './ach-files.operations.ts';
import { AchFile, type AchFileView } from './ach-files.resource.ts';

export const AchFileRef = graphqlObject<AchFileView>(AchFile, {
  // REST downloads the file (GET /v1/ach_files/{id}/file); GraphQL answers its text.
  // biome-ignore lint/suspicious/noExplicitAny: derived types take Pothos's field builder untyped.
  extra: (t: any) => ({
    file: t.string({
      description: 'The file in the NACHA format, as text.',
      resolve: (row: AchFileView) => nachaText(row.file),
    }),
  }),
});

// A list, not a connection: an ACH file's id names a window or a day, not a stored object (no Node).
builder.queryFields((t) => ({
  achFiles: t.field({
    type: [AchFileRef],
    description: `The merchant's ACH files (NACHA), newest first: the latest ${MAX_PAGE_LIMIT} at most (REST pages through all).`,
    resolve: async (_root, _args, ctx) =>
      (await listAchFiles(serviceContext(ctx), { limit: MAX_PAGE_LIMIT })).data,
  }),
}));

mountGraphqlOperations(achFileOperations);
