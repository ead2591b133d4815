// curl's -d @file reading done a piece at a time (upload.ts TextLines) gives what reading the
// whole file gives (curl/body.ts textLines), wherever the pieces are cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextLines } from '../../src/model/upload.js';
import { textLines } from '../../src/sources/curl/body.js';

function inPieces(data: Buffer, cuts: number[]): Buffer {
  const lines = new TextLines();
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (data.length + 1)).sort((a, b) => a - b), data.length]) {
    const piece = Buffer.from(data.subarray(at, cut));
    out.push(piece.subarray(0, lines.run(piece, piece)));
    at = Math.max(at, cut);
  }
  return Buffer.concat(out);
}

test('TextLines, a piece at a time, equals textLines on the whole: CR, LF, NUL, lines over 255 bytes, any cuts', () => {
  // Mostly plain bytes, so that lines run past 255 bytes; CR and NUL now and then; LF ends each line.
  const byte = fc.oneof(
    { arbitrary: fc.constantFrom(97, 98, 32), weight: 30 },
    { arbitrary: fc.constantFrom(13, 0), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 255 }).filter((b) => b !== 10), weight: 3 },
  );
  const line = fc.array(byte, { maxLength: 1200, size: 'max' });
  fc.assert(
    fc.property(fc.array(line, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), (lines, cuts) => {
      const data = Buffer.from(lines.flatMap((l) => [...l, 10]));
      assert.deepEqual(inPieces(data, cuts), Buffer.from(textLines(data.toString('latin1')), 'latin1'));
    }),
    { seed: 26, numRuns: 300 },
  );
});
