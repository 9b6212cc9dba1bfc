import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { BUNDLES_FILE, type BundleSpec, buildBundles } from './function-bundles.ts';

// `node --import tsx infra/cdk/build-bundles.ts <projectRoot> <outdir> <specs as JSON>`: the
// stack's bundles built in a process of its own (infra/cdk/function-bundles.ts, FunctionBundles).
const [projectRoot, outdir, specs] = process.argv.slice(2);
const built = await buildBundles(projectRoot, JSON.parse(specs) as BundleSpec[], outdir);
writeFileSync(path.join(outdir, BUNDLES_FILE), JSON.stringify([...built.values()]));
