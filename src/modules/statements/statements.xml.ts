/**
 * A small XML writer for ISO 20022 documents: elements in the order given (the schemas fix the
 * order), text escaped, empty optional elements left out.
 */
export type XmlNode = [name: string, content: XmlContent, attributes?: Record<string, string>];
export type XmlContent = string | number | readonly (XmlNode | null | undefined | false)[];

/** Whether a character is one XML 1.0 allows: no control character but tab, line feed and carriage return, no lone surrogate. */
const xmlAllowed = (char: string) => {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20) return code === 0x9 || code === 0xa || code === 0xd;
  return !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff;
};

/** Text as XML 1.0 allows it, escaped. */
const escapeXml = (value: string) =>
  Array.from(value)
    .filter(xmlAllowed)
    .join('')
    .replace(
      /[<>&"']/g,
      (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
    );

function render(node: XmlNode, depth: number, out: string[]): void {
  const [name, content, attributes] = node;
  const attrs = Object.entries(attributes ?? {})
    .map(([key, value]) => ` ${key}="${escapeXml(value)}"`)
    .join('');
  const pad = '  '.repeat(depth);
  if (typeof content === 'string' || typeof content === 'number') {
    out.push(`${pad}<${name}${attrs}>${escapeXml(String(content))}</${name}>`);
    return;
  }
  out.push(`${pad}<${name}${attrs}>`);
  for (const child of content) if (child) render(child, depth + 1, out);
  out.push(`${pad}</${name}>`);
}

/** An XML document whose root element is `root`, with the XML declaration. */
export function xmlDocument(root: XmlNode): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  render(root, 0, out);
  return `${out.join('\n')}\n`;
}

/** An ISO 20022 message: `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:<message>">` around `body`. */
export function isoDocument(message: string, body: XmlNode): string {
  return xmlDocument(['Document', [body], { xmlns: `urn:iso:std:iso:20022:tech:xsd:${message}` }]);
}

/** Text cut to an ISO 20022 MaxNText's length, in characters (never half a surrogate pair). */
export const maxText = (value: string, length: number) => Array.from(value).slice(0, length).join('');

/** An ISO date-time in UTC with milliseconds dropped: 2026-11-27T14:05:00Z. */
export const isoDateTime = (instant: Date) => `${instant.toISOString().slice(0, 19)}Z`;
