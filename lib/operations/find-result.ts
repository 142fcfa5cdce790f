// What a list read answers: one page of records with the facts each envelope needs. Shared by the page
// and cursor reads and by every caller of find.
import type { ApiRecord } from '../schema/to-record';

/** A page of records; totals only when counted, cursors only in cursor mode. */
export interface FindResult {
  docs: ApiRecord[];
  page: number;
  limit: number;
  /** Absent when the query asked for count=false or used a cursor. */
  total?: number;
  totalPages?: number;
  hasNextPage: boolean;
  hasPrevPage: boolean;
  /** Cursor mode only. */
  nextCursor?: string | null;
  prevCursor?: string | null;
}
