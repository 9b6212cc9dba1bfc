import { createTable, type Table } from '../store/table.ts';
import { type Config, readConfig } from './config.ts';

/**
 * The composition root: every handler gets its adapters from here, built once per cold start
 * (or once per local server process) from configuration validated once.
 */
export interface Services {
  config: Config;
  table: Table;
}

let services: Services | undefined;

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
    };
  }
  return services;
}

/** Drops the cached services so the next call rebuilds them from the environment (tests). */
export function resetServices(): void {
  services = undefined;
}
