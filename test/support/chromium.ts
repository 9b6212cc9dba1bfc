import { existsSync } from 'node:fs';

/** Debian's chromium (CHROMIUM_PATH overrides): Playwright's own browser download is not used. */
export function chromiumExecutable(): string | undefined {
  return [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (candidate): candidate is string => Boolean(candidate) && existsSync(candidate as string),
  );
}

/** Flags for a closed network: without the background-networking ones Chromium calls Google at start. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why a browser test cannot run here; in CI (CI set) the missing browser is an error, not a skip. */
export function missingChromium(testFile: string): string {
  if (process.env.CI) {
    throw new Error(
      'No Chromium at /usr/bin/chromium (or CHROMIUM_PATH): CI must run the browser test (.ci/run installs Debian’s chromium)',
    );
  }
  const reason =
    'no Chromium at /usr/bin/chromium or CHROMIUM_PATH; `apt-get install chromium` to run the browser test';
  console.warn(`${testFile}: browser tests skipped: ${reason}`);
  return reason;
}
