// The `reach` of a route (route-table.ts) from the check its handler runs: a caller the check refuses (a 401
// or a 403) may not use the route at all; one it lets through, or lets through for some records (a where),
// may. Any other failure is the rule's bug and fails as the check would.
import { ForbiddenError, UnauthorizedError } from '../errors';

/** False when `check` refuses the caller outright, true when it lets it through in any way. */
export async function reachedUnlessRefused(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (error) {
    if (error instanceof ForbiddenError || error instanceof UnauthorizedError) return false;
    throw error;
  }
}
