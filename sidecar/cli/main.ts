// Entry point of the `engram` bundle.
import { main } from './app.js';
import { errorMessage } from '../../src/core/errors.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`engram: ${errorMessage(e)}\n`);
    process.exitCode = 1;
  },
);
