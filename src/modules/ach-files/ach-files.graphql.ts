import { graphqlObject } from '../../graphql/derive.ts';
import { mountGraphqlOperations } from '../../graphql/mount.ts';
import { nachaText } from './ach-files.nacha.ts';
import { achFileOperations } from './ach-files.operations.ts';
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

mountGraphqlOperations(achFileOperations);
