import * as v from 'valibot';
import { InvalidRequestError } from './errors.ts';

/** `subjects[3].name`: the path of an issue as a JavaScript reader would write it. */
export function issuePath(issue: v.BaseIssue<unknown>): string | undefined {
  if (!issue.path || issue.path.length === 0) return undefined;
  let path = '';
  for (const item of issue.path) {
    if (item.type === 'array') path += `[${String(item.key)}]`;
    else path += path ? `.${String(item.key)}` : String(item.key);
  }
  return path;
}

/**
 * Validates `input` against a valibot schema; a failure is a 400 whose detail names each field
 * and its problem (the first five), e.g. `dob: must be a real date in the form YYYY-MM-DD` or
 * `subjects[3].name: must be at least 2 characters`.
 */
export function validate<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  where: string,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const problems = result.issues.slice(0, 5).map((issue) => `${issuePath(issue) ?? where}: ${issue.message}`);
  throw new InvalidRequestError(problems.join('; '));
}
