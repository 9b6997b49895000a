// Test helper: the README's custom relu kernel, doubled (y = 2·max(x, 0)) so that a test can tell from the result
// that the registered generator ran instead of the built-in one. Shared by the runtime's and nn's custom-kernel tests.

import { userUnaryKernel } from './userUnaryKernel.js';

/** A relu generator computing 2·relu(x), written as the README's example. */
export const doubledRelu = userUnaryKernel<'relu'>('my-relu', (x) => `max(${x}, 0.0) * 2.0`);
