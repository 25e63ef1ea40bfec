/**
 * A real piscina Dispatcher shared by the tests of one describe block: opened before them, closed (its
 * threads ended) after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { Dispatcher, type DispatcherOptions } from '../../src-main/dispatcher/dispatcher';

/** Open a dispatcher for the enclosing describe block; the returned function gives it to a test. */
export function suiteDispatcher(options: DispatcherOptions): () => Dispatcher {
  let d: Dispatcher | undefined;
  beforeAll(() => {
    d = new Dispatcher(options);
  });
  afterAll(async () => {
    await d?.close();
  });
  return () => {
    if (d === undefined) throw new Error('the suite dispatcher is opened in beforeAll: ask for it inside a test');
    return d;
  };
}
