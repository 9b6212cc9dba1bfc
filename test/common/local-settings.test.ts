import { describe, expect, it } from 'vitest';
import { localSettings } from '../../lib/common/config.ts';

describe('the local runtime settings', () => {
  it('keeps the store in .data when DATA_DIR is unset or empty (an empty one wrote it into the working directory)', () => {
    expect(localSettings({}).dataDir).toBe('.data');
    expect(localSettings({ DATA_DIR: '' }).dataDir).toBe('.data');
    expect(localSettings({ DATA_DIR: '/tmp/store' }).dataDir).toBe('/tmp/store');
  });
});
