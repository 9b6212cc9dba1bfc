import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acceptsGzip,
  contentTypeOf,
  isSwaggerUiFile,
  swaggerUiDirectory,
} from '../../lib/api-docs/swagger-ui-files.ts';
import { SWAGGER_UI_FILES } from '../../lib/contract/routes.ts';

describe('the Swagger UI files the reference page serves', () => {
  it('are all in the installed swagger-ui-dist, each with a content type', () => {
    const directory = swaggerUiDirectory(undefined);

    expect(SWAGGER_UI_FILES.files.filter((file) => !existsSync(join(directory, file)))).toEqual([]);
    expect(SWAGGER_UI_FILES.files.map(contentTypeOf)).toEqual([
      'text/javascript; charset=utf-8',
      'text/css; charset=utf-8',
      'image/png',
      'image/png',
    ]);
  });

  it('are found where SWAGGER_UI_DIR says when it is set (a deployed function)', () => {
    expect(swaggerUiDirectory('/var/task/swagger-ui')).toBe('/var/task/swagger-ui');
  });

  it('leave out everything else of the package', () => {
    for (const name of ['index.html', 'swagger-ui-standalone-preset.js', 'swagger-ui-bundle.js.map', '']) {
      expect(isSwaggerUiFile(name), name).toBe(false);
    }
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br', true],
    ['br;q=1.0, GZIP;q=0.5', true],
    ['*', true],
    ['gzip;q=0, *', false],
    ['br, *;q=0', false],
    ['identity', false],
    ['gzip;q=0', false],
    ['gzip;q=0.000, br', false],
    ['x-gzip', false],
    ['', false],
  ])('%j → %s', (header, accepted) => {
    expect(acceptsGzip(header)).toBe(accepted);
  });

  it('is false without the header', () => {
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
