// Golden files: expected outputs kept in test/fixtures/golden/. A normal run only reads them, so a
// test can never write its own expectation: a missing file is a failure. UPDATE_GOLDEN=1 writes
// them (then review the change with git diff before committing).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The expected text of golden file `name` in `dir`; under UPDATE_GOLDEN=1, `got` is written there first. */
export function golden(dir: string, name: string, got: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = join(dir, name);
  if (env.UPDATE_GOLDEN === '1') {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, got);
  } else {
    assert.ok(existsSync(file), `golden file ${name} is missing from ${dir}: run UPDATE_GOLDEN=1 npm test -- format to write it, and review it before committing`);
  }
  return readFileSync(file, 'utf8');
}
