/**
 * `npm run bench:reference-page`: how long the API reference page (GET /docs) takes to resolve
 * what a reader opens. The service runs as its own process (bench/service-process.ts); Debian's
 * Chromium loads the page, and inside it every operation, webhook and schema of the document is
 * resolved twice, by Swagger UI's own OpenAPI 3.1 resolver (`fn.resolveSubtree.swaggerOwn`) and by
 * the page's (lib/api-docs/reference-page.ts), which must give the same subtree. Prints both
 * totals, their ratio, and how many subtrees came out identical.
 */
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumExecutable } from '../test/support/chromium.ts';
import { sortedJson } from '../test/support/sorted-json.ts';
import { startService } from './service-process.ts';

type Resolved = { spec: unknown; errors: unknown[] };
type Resolve = (spec: unknown, path: string[], options: object) => Promise<Resolved>;

const executable = chromiumExecutable();
if (!executable) throw new Error('bench:reference-page needs Chromium (apt-get install chromium)');
const service = await startService();
const browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  // tsx names the functions it compiles with a helper, __name, that the page does not have.
  await page.addInitScript('window.__name = (fn) => fn;');
  await page.goto(`${service.url}/docs`);
  await page.locator('.opblock').first().waitFor();
  const figures = await page.evaluate(async () => {
    const system = (
      window as unknown as {
        ui: {
          getSystem(): {
            fn: { resolveSubtree: Resolve & { swaggerOwn: Resolve } };
            specSelectors: { specJS(): Record<string, Record<string, Record<string, unknown>>> };
          };
        };
      }
    ).ui.getSystem();
    const spec = system.specSelectors.specJS();
    const methods = ['get', 'put', 'post', 'delete', 'patch', 'head'];
    const paths: string[][] = [];
    for (const section of ['paths', 'webhooks'])
      for (const [name, item] of Object.entries(spec[section] ?? {}))
        for (const method of Object.keys(item as object))
          if (methods.includes(method)) paths.push([section, name, method]);
    for (const name of Object.keys(spec.components.schemas)) paths.push(['components', 'schemas', name]);
    const resolve = system.fn.resolveSubtree;
    let [ownMs, pageMs] = [0, 0];
    const pairs: [Resolved, Resolved][] = [];
    for (const path of paths) {
      let started = performance.now();
      const theirs = await resolve.swaggerOwn(spec, path, {});
      ownMs += performance.now() - started;
      started = performance.now();
      const ours = await resolve(spec, path, {});
      pageMs += performance.now() - started;
      pairs.push([theirs, ours]);
    }
    return { subtrees: paths.length, ownMs, pageMs, pairs };
  });
  const identical = figures.pairs.filter(
    ([theirs, ours]) =>
      sortedJson(theirs.spec) === sortedJson(ours.spec) && theirs.errors.length + ours.errors.length === 0,
  ).length;
  console.log(
    `${figures.subtrees} subtrees (operations, webhooks, schemas): Swagger UI's own 3.1 resolution ${(figures.ownMs / 1000).toFixed(1)} s, ` +
      `the page's ${(figures.pageMs / 1000).toFixed(1)} s (${(figures.ownMs / figures.pageMs).toFixed(0)}× faster); ` +
      `${identical} of ${figures.subtrees} identical`,
  );
} finally {
  await browser.close();
  await service.stop();
}
