// Shapes a find result into the envelope of the dialect the request spoke:
// cursor -> { data, meta: {hasNextPage, hasPrevPage, nextCursor, prevCursor} },
// Form A -> { docs, totalDocs, limit, page, totalPages, hasNextPage, hasPrevPage },
// default -> { data, meta: { total, page, perPage, totalPages } }.
import type { FindResult } from '../operations/find-result';
import type { EnvelopeKind } from '../query/types';

/** Builds the list response body. Totals are omitted when the query said count=false. */
export function toListEnvelope(result: Omit<FindResult, 'docs'> & { docs: readonly object[] }, kind: EnvelopeKind): Record<string, unknown> {
  if (kind === 'cursor') {
    return {
      data: result.docs,
      meta: {
        hasNextPage: result.hasNextPage,
        hasPrevPage: result.hasPrevPage,
        nextCursor: result.nextCursor ?? null,
        prevCursor: result.prevCursor ?? null,
      },
    };
  }
  if (kind === 'docs') {
    const body: Record<string, unknown> = { docs: result.docs };
    if (result.total !== undefined) body.totalDocs = result.total;
    body.limit = result.limit;
    body.page = result.page;
    if (result.totalPages !== undefined) body.totalPages = result.totalPages;
    body.hasNextPage = result.hasNextPage;
    body.hasPrevPage = result.hasPrevPage;
    return body;
  }
  const meta: Record<string, unknown> = {};
  if (result.total !== undefined) meta.total = result.total;
  meta.page = result.page;
  meta.perPage = result.limit;
  if (result.totalPages !== undefined) meta.totalPages = result.totalPages;
  if (result.total === undefined) {
    meta.hasNextPage = result.hasNextPage;
    meta.hasPrevPage = result.hasPrevPage;
  }
  return { data: result.docs, meta };
}
