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
  const fields = result.issues.slice(0, 5).map((issue) => ({
    field: issuePath(issue) ?? where,
    code: ruleOf(issue),
    message: issue.message,
  }));
  throw new InvalidRequestError(
    fields.map((problem) => `${problem.field}: ${problem.message}`).join('; '),
    undefined,
    fields,
  );
}

/** The rule an issue broke, as a stable word: `required`, `unknown_field`, or valibot's own name of it. */
function ruleOf(issue: v.BaseIssue<unknown>): string {
  if (issue.expected === 'never') return 'unknown_field';
  if (issue.kind === 'schema' && issue.received === 'undefined') return 'required';
  return issue.type;
}
