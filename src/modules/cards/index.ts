import { defineModule } from '../module.ts';

/** The card network's decision (Luhn, brands, magic cards, ISO 8583 codes): pure, no registry. */
export default defineModule({ name: 'cards' });
