// The test helpers that decide whether a comparison with another program runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparisonToolMissing } from '../helpers/tools.js';

const NOWHERE = '/nonexistent-sling-test-path';

test('a missing curl or HTTPie skips its comparison with the reason outside CI, and fails it under CI=true', () => {
  for (const tool of ['curl', 'http'] as const) {
    assert.match(comparisonToolMissing(tool, { PATH: NOWHERE }) ?? '', new RegExp(`^${tool} \\(Debian package \\w+\\) is not installed: the comparison with real (curl|HTTPie) is skipped$`));
    assert.match(comparisonToolMissing(tool, { PATH: NOWHERE, CI: 'false' }) ?? '', /is skipped$/);
    assert.throws(() => comparisonToolMissing(tool, { PATH: NOWHERE, CI: 'true' }), new RegExp(`^Error: ${tool} .* is not installed, and under CI=true the comparison with it must run, not skip`));
  }
});
