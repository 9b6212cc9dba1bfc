import type { Table } from '../../lib/store/table.ts';

/**
 * The same table, except that the first command `fails` picks is refused as an outage would
 * refuse it (the command is not sent); every other command goes through to the real store.
 * `failed()` says whether the outage happened, so a test cannot pass without it.
 */
export function failOnce(
  table: Table,
  fails: (input: Record<string, unknown>) => boolean,
): { table: Table; failed: () => boolean } {
  let failed = false;
  const doc = {
    send: (command: { input: Record<string, unknown> }) => {
      if (!failed && fails(command.input)) {
        failed = true;
        return Promise.reject(new Error('store unavailable'));
      }
      return table.doc.send(command as never);
    },
  } as unknown as Table['doc'];
  return { table: { name: table.name, doc }, failed: () => failed };
}
