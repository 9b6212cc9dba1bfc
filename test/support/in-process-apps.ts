/**
 * The in-process apps by origin (test/support/in-process-stack.ts registers one per stack;
 * test/support/contract-setup.ts sends a `fetch` to its origin there). Kept on the global object:
 * with `isolate: false` the setup file runs again before each test file, and must find the same map.
 */
export type InProcessApps = Map<string, (request: Request) => Promise<Response>>;
const IN_PROCESS_APPS = Symbol.for('screening.test.inProcessApps');
export function inProcessApps(): InProcessApps {
  const global = globalThis as { [IN_PROCESS_APPS]?: InProcessApps };
  global[IN_PROCESS_APPS] ??= new Map();
  return global[IN_PROCESS_APPS];
}
