/** The NACHA parser the outside tier reads the ACH files with (it ships no types). */
declare module '@midlandsbank/node-nacha' {
  interface Totals {
    entryAndAddendaCount: number;
    entryHash: number;
    totalDebit: number;
    totalCredit: number;
  }
  interface Parsed {
    data: {
      file: {
        destination: string;
        origin: string;
        footer: Totals & { batchCount: number; blockCount: number };
      };
      batches: {
        entryClassCode: string;
        serviceClassCode: number;
        originatingDFIIdentification: string;
        entries: {
          transactionCode: string;
          receivingDFIIdentification: number;
          amount: number;
          traceNumber: number;
          addenda?: { type: string };
        }[];
        footer: Totals;
      }[];
    };
    to(format: 'ach' | 'json'): string;
  }
  export function from(text: string): Parsed;
}
