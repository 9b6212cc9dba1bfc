import * as v from 'valibot';
import { InvalidRequestError } from '../errors.ts';

/**
 * Validates `input` against a valibot schema; a failure is a 400 whose detail names each field
 * and its problem, e.g. `dob: must be a real date in the form YYYY-MM-DD`.
 */
export function validate<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  where: string,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const problems = result.issues.slice(0, 5).map((issue) => {
    const path = v.getDotPath(issue);
    return path ? `${path}: ${issue.message}` : `${where}: ${issue.message}`;
  });
  throw new InvalidRequestError(problems.join('; '));
}
