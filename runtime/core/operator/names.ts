import { z } from 'zod';
import { CONNECTION_NAME_PATTERN } from '../governance/tool-names.ts';

/** Names an operator types: lower case, digits and dashes. */
export const NameSchema = z
  .string()
  .regex(
    CONNECTION_NAME_PATTERN,
    'lower-case letters, digits and dashes, starting with a letter, at most 32',
  );
