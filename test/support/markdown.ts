/**
 * A Markdown table as its cells, row by row (the separator row left out), so that a document's
 * generated tables can be compared with the code however the formatter pads their columns.
 */
export const tableCells = (table: string): string[][] =>
  table
    .trim()
    .split('\n')
    .filter((line) => !/^\|[\s|-]+\|$/.test(line))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
