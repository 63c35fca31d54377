import graphqlESLint from '@graphql-eslint/eslint-plugin';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/api/graphql/schema.ts';

/**
 * graphql-eslint's schema rules run over the SDL the code builds (the one schema.graphql must
 * equal): every type, field, argument and enum value described, names in one style, nothing
 * unreachable, relay's connection shapes. Enum values are snake_case like the REST wire values
 * they mirror (TransferRail `same_day_ach`), except codes that are upper case by nature
 * (currencies, ACH SEC, return and change codes, ISO 20022 reasons of returns, recalls and rejections).
 */
const UPPER_CASE_ENUMS = [
  'CurrencyCode',
  'FxTargetCurrency',
  'AchSecCode',
  'AchReturnCode',
  'AchChangeCode',
  'AchRefusedNocCode',
  'PayoutFailureCode',
  'FxSettlementFailureCode',
  'TransferReturnCode',
  'WireRecallReason',
  'PaymentRequestRejectReason',
];
const upperCaseEnum = `/^(${UPPER_CASE_ENUMS.join('|')})$/`;

const RULES: Linter.RulesRecord = {
  '@graphql-eslint/description-style': ['error', { style: 'block' }],
  '@graphql-eslint/require-description': [
    'error',
    {
      types: true,
      rootField: true,
      FieldDefinition: true,
      InputValueDefinition: true,
      EnumValueDefinition: true,
      DirectiveDefinition: true,
    },
  ],
  '@graphql-eslint/naming-convention': [
    'error',
    {
      types: 'PascalCase',
      FieldDefinition: 'camelCase',
      InputValueDefinition: 'camelCase',
      Argument: 'camelCase',
      DirectiveDefinition: 'camelCase',
      [`EnumValueDefinition[parent.name.value=${upperCaseEnum}]`]: 'UPPER_CASE',
      [`EnumValueDefinition[parent.name.value!=${upperCaseEnum}]`]: 'snake_case',
      'FieldDefinition[parent.name.value=Query]': { forbiddenPatterns: [/^(query|get)/i, /query$/i] },
      'FieldDefinition[parent.name.value=Mutation]': { forbiddenPatterns: [/(^mutation)|(mutation$)/i] },
      'FieldDefinition[parent.name.value=Subscription]': {
        forbiddenPatterns: [/(^subscription)|(subscription$)/i],
      },
      'EnumTypeDefinition,EnumTypeExtension': { forbiddenPatterns: [/(^enum)|(enum$)/i] },
      'InterfaceTypeDefinition,InterfaceTypeExtension': { forbiddenPatterns: [/(^interface)|(interface$)/i] },
      'UnionTypeDefinition,UnionTypeExtension': { forbiddenPatterns: [/(^union)|(union$)/i] },
      'ObjectTypeDefinition,ObjectTypeExtension': { forbiddenPatterns: [/(^type)|(type$)/i] },
    },
  ],
  '@graphql-eslint/no-hashtag-description': 'error',
  '@graphql-eslint/no-typename-prefix': 'error',
  '@graphql-eslint/no-unreachable-types': 'error',
  '@graphql-eslint/require-deprecation-reason': 'error',
  '@graphql-eslint/unique-enum-value-names': 'error',
  '@graphql-eslint/relay-connection-types': 'error',
  '@graphql-eslint/relay-edge-types': [
    'error',
    { withEdgeSuffix: true, shouldImplementNode: true, listTypeCanWrapOnlyEdgeType: false },
  ],
  '@graphql-eslint/relay-page-info': 'error',
  '@graphql-eslint/relay-arguments': 'error',
  // graphql-js's own schema validation, through the plugin.
  '@graphql-eslint/known-type-names': 'error',
  '@graphql-eslint/known-directives': 'error',
  '@graphql-eslint/known-argument-names': 'error',
  '@graphql-eslint/lone-schema-definition': 'error',
  '@graphql-eslint/possible-type-extension': 'error',
  '@graphql-eslint/provided-required-arguments': 'error',
  '@graphql-eslint/unique-directive-names': 'error',
  '@graphql-eslint/unique-directive-names-per-location': 'error',
  '@graphql-eslint/unique-field-definition-names': 'error',
  '@graphql-eslint/unique-operation-types': 'error',
  '@graphql-eslint/unique-type-names': 'error',
};

function lint(sdl: string): Linter.LintMessage[] {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(
    sdl,
    [
      {
        files: ['**/*.graphql'],
        languageOptions: { parser: graphqlESLint.parser, parserOptions: { schemaSdl: sdl } },
        plugins: { '@graphql-eslint': graphqlESLint as never },
        rules: RULES,
      },
    ],
    { filename: 'schema.graphql' },
  );
}

const format = (messages: Linter.LintMessage[]) =>
  messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? 'parse'}: ${m.message}`);

describe('GraphQL schema lint (graphql-eslint)', () => {
  it('the schema has no lint errors', () => {
    expect(format(lint(printedSchema()))).toEqual([]);
  });

  it('the lint fails on what it is meant to catch (a missing description, a misnamed enum value)', () => {
    const messages = lint(
      [
        '"""The root."""',
        'type Query {',
        '  """A thing."""',
        '  thing: Thing',
        '}',
        'type Thing {',
        '  """Its id."""',
        '  id: ID!',
        '  """How it is."""',
        '  state: ThingState',
        '}',
        '"""A state."""',
        'enum ThingState {',
        '  """Fine."""',
        '  Fine',
        '}',
        '',
      ].join('\n'),
    );
    const rules = messages.map((m) => m.ruleId);
    expect(rules).toContain('@graphql-eslint/require-description');
    expect(rules).toContain('@graphql-eslint/naming-convention');
  });
});
