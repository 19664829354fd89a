import { EngineError } from '../../src/engine/errors.js';

/** Runs an engine call that must fail, and returns its EngineError for the test to inspect. */
export function engineError(run: () => unknown): EngineError {
  try {
    run();
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected the engine call to fail with an EngineError');
}
