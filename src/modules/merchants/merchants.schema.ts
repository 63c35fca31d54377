import { z } from 'zod';
import type { FieldCodes } from '../../kernel/validation.ts';

/** POST /v1/merchants: the keyless sign-up. */
export const signUpSchema = z.strictObject({ name: z.string().min(1).max(100) });

export const signUpFieldCodes: FieldCodes = { name: 'parameter_invalid' };

/** POST /v1/merchants' body as parsed: signUp's input. */
export type SignUpInput = z.output<typeof signUpSchema>;
