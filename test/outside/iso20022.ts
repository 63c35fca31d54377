/**
 * ISO 20022 messages checked by parts nobody here wrote: validity against the message's published
 * schema (schemas/<message>.xsd, as ISO 20022 publishes it) with libxml2's xmllint (compiled to
 * WebAssembly), and the values read back with an independent XML parser.
 */
import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { validateXML } from 'xmllint-wasm';

const schemaOf = (message: string) =>
  readFileSync(new URL(`./schemas/${message}.xsd`, import.meta.url), 'utf8');

/** The schema's complaints about `xml` (none: valid). */
export async function validateIso(message: string, xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: { fileName: 'message.xml', contents: xml },
    schema: { fileName: `${message}.xsd`, contents: schemaOf(message) },
  });
  return result.errors.map((error) => error.rawMessage);
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => ['Bal', 'Ntry', 'Stmt'].includes(name),
});

export type Xml = Record<string, unknown>;

/** A message's document, parsed. */
export function parseIso(xml: string): Xml {
  return parser.parse(xml) as Xml;
}

const at = (node: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => (value as Xml | undefined)?.[key], node);

/** What a camt.053 statement or camt.052 report says: its account, balances, entries and their net. */
export function camtSummary(xml: string) {
  const doc = parseIso(xml).Document as Xml;
  const statement =
    (at(doc, 'BkToCstmrStmt', 'Stmt') as Xml[] | undefined)?.[0] ??
    (at(doc, 'BkToCstmrAcctRpt', 'Rpt') as Xml);
  const signedAmount = (node: Xml) => {
    const amount = at(node, 'Amt') as Xml;
    const value = Number(amount['#text']);
    return at(node, 'CdtDbtInd') === 'DBIT' ? -value : value;
  };
  const balances = Object.fromEntries(
    (statement.Bal as Xml[]).map((b) => [at(b, 'Tp', 'CdOrPrtry', 'Cd'), signedAmount(b)]),
  );
  const entries = (statement.Ntry as Xml[] | undefined) ?? [];
  return {
    account: String(at(statement, 'Acct', 'Id', 'Othr', 'Id')),
    currency: String(at(statement, 'Acct', 'Ccy')),
    balances,
    entries: entries.length,
    net: entries.reduce((sum, entry) => sum + signedAmount(entry), 0),
    refs: entries.map((entry) => String(at(entry, 'NtryRef'))),
  };
}
