import { describedEnum } from '../../graphql/enums.ts';
import type { CardBrand } from '../cards/card-numbers.ts';

/** The card network, typed against the cards module's brands (card-numbers.ts). */
export const CardBrandEnum = describedEnum('CardBrand', 'The card network.', {
  visa: 'Visa.',
  mastercard: 'Mastercard.',
  amex: 'American Express.',
} satisfies Record<CardBrand, string>);
