import { createMatcher, type Matcher } from '../matcher/screen.ts';
import { createTable, type Table } from '../store/table.ts';
import { loadSnapshot } from '../watchlists/snapshot.ts';
import { type Config, readConfig } from './config.ts';

/**
 * The composition root: every handler gets its adapters from here, built once per cold start
 * (or once per local server process) from configuration validated once.
 */
export interface Services {
  config: Config;
  table: Table;
  /**
   * The matcher over the watchlist snapshot, built on first use and then kept for the life of
   * the process (one cold start): loading and indexing the lists costs about half a second, a
   * screen well under a millisecond. Functions that never screen never pay for it.
   */
  matcher(): Matcher;
}

let services: Services | undefined;
/** Outlives resetServices: the lists do not depend on the table a test stack points at. */
let matcher: Matcher | undefined;

export function getServices(): Services {
  if (!services) {
    const config = readConfig();
    services = {
      config,
      table: createTable({
        tableName: config.TABLE_NAME,
        endpoint: config.DYNAMODB_ENDPOINT,
        region: config.AWS_REGION,
      }),
      matcher: () => {
        matcher ??= createMatcher(loadSnapshot(config.WATCHLIST_SNAPSHOT || undefined));
        return matcher;
      },
    };
  }
  return services;
}

/** Drops the cached services so the next call rebuilds them from the environment (tests). */
export function resetServices(): void {
  services = undefined;
}
