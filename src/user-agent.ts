/**
 * The User-Agent of Sandbank's own clients, by which the request log tells their requests from the
 * others' (docs/guide/request-log.md, "source"): the CLI, and sandbank/testing's helpers. The
 * version is package.json's (test/unit/request-log.test.ts holds the two equal); written here, not
 * read from the package at run time, so that the testing API loads nothing more for it.
 */
export const SANDBANK_VERSION = '0.1.0';

export const CLI_USER_AGENT = `sandbank-cli/${SANDBANK_VERSION}`;
export const TESTING_USER_AGENT = `sandbank-testing/${SANDBANK_VERSION}`;
