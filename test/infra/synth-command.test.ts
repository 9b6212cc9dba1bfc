/**
 * The deploy command as docs/operations.md#deploy gives it, `npm run synth`, run as ops run it (a
 * child process, the CDK CLI, cdk-nag in the app): it succeeds offline and writes a cloud
 * assembly in which every function's code is a bundle the template points at. CI runs it here,
 * beside the other tests, instead of as a step of its own before them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

interface TemplateResource {
  Type: string;
  Properties?: { Handler?: string; Runtime?: string };
  Metadata?: Record<string, unknown>;
}

describe('npm run synth', () => {
  it('synthesises the stack offline, cdk-nag clean, with a bundle for every function', {
    timeout: 400_000,
  }, () => {
    const run = spawnSync('npm', ['run', '--silent', 'synth'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 380_000,
      // No AWS configuration, as on a fresh machine: the CLI resolves a region on its own.
      env: { ...process.env, AWS_PROFILE: '', AWS_REGION: '', AWS_DEFAULT_REGION: '', CI: 'true' },
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).not.toMatch(/AwsSolutions-|\[Error at /);

    const out = join(root, 'cdk.out');
    const template = JSON.parse(
      readFileSync(join(out, 'IndividualScreeningService.template.json'), 'utf8'),
    ) as { Resources: Record<string, TemplateResource> };
    const bundled = Object.values(template.Resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Metadata?.['aws:asset:is-bundled'],
    );
    expect(bundled.length).toBeGreaterThan(40);
    const assets = bundled.map((resource) => join(out, String(resource.Metadata?.['aws:asset:path'])));
    for (const [index, asset] of assets.entries()) {
      expect(existsSync(join(asset, 'index.mjs')), String(bundled[index]?.Metadata?.['aws:cdk:path'])).toBe(
        true,
      );
      expect(bundled[index]?.Properties?.Handler).toBe('index.handler');
    }
    // The functions that screen carry the watchlist snapshot beside their code; the others do not.
    const withSnapshot = assets.filter((asset) => readdirSync(asset).includes('watchlists.json'));
    expect(withSnapshot.length).toBeGreaterThan(0);
    expect(withSnapshot.length).toBeLessThan(assets.length);
  });
});
