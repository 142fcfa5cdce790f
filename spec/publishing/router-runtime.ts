// The runtime a router's features are built on, caught as the REST feature is handed it: specs make working
// copies with the operations on `collection.drafts` (as draft saves do) and listen to the change bus.
import { restFeature } from '../../lib/rest/rest-feature';
import type { Runtime } from '../../lib/operations/runtime';

/** Runs `build` (which creates one router) and answers what it built with that router's runtime. */
export async function withRuntime<T>(build: () => Promise<T>): Promise<{ built: T; runtime: Runtime }> {
  const spy = jest.spyOn(restFeature, 'create');
  try {
    const built = await build();
    const runtime = spy.mock.calls.at(-1)?.[0];
    if (!runtime) throw new Error('no router was built');
    return { built, runtime };
  } finally {
    spy.mockRestore();
  }
}
