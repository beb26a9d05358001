// How a Node host gives its event loop a turn during long work (an index build, a snapshot, curation): setImmediate
// runs after the loop's pending I/O, with none of the millisecond setTimeout(0) adds to each of a build's hundreds of
// turns (the core's default, which a page must use).
import type { Yield } from '../../src/core/ports.js';

export const yieldImmediate: Yield = () => new Promise((resolve) => setImmediate(resolve));
