// The pure query layer's public surface: parse a list (or count) request, parse a where (client or access
// constraint), resolve relation conditions, and turn the result into Mongo filter, sort and cursors.
export { OPERATORS } from './types';
export type {
  CursorPosition,
  EnvelopeKind,
  ListQuery,
  Operator,
  PopulateTree,
  QueryOptions,
  RecordQuery,
  SortItem,
  WhereNode,
} from './types';
export { parseListQuery } from './parse-list-query';
export { parseCountQuery } from './parse-count-query';
export { parseRecordQuery, prunePopulate } from './parse-record-query';
export { parseWhere, type ParseWhereOptions } from './parse-where';
export { MAX_LIST_VALUES, MAX_WHERE_CONDITIONS, MAX_WHERE_DEPTH } from './parse-condition';
export { parseFilter } from './parse-filter';
export { parseSearch, MAX_SEARCH_LENGTH } from './parse-search';
export { parseSort, toMongoSort, DEFAULT_SORT } from './parse-sort';
export { parsePage, parseLimit, chooseEnvelope } from './parse-pagination';
export { parsePopulate, parseDepth, parseInclude, expandDepth, mergePopulate } from './parse-populate';
export { parseSelect } from './parse-select';
export { combineWhere, combineAnd } from './combine-where';
export { hasRelationNodes, mapRelationNodes, type RelationNode } from './map-relation-nodes';
export { assertRelationLimits, listRelationPaths, rejectTooManyRelationIds, type RelationLimits, type RelationPath } from './relation-limits';
export { toMongoFilter, matchNothing } from './to-mongo-filter';
export { encodeCursor, decodeCursor, signCursor, MAX_CURSOR_LENGTH } from './cursor';
export { cursorFilter, reverseSort } from './cursor-filter';
export { castDate } from '../schema/parse-date';
export type { QueryErrorCode } from './reject';
export { mongoFilterKey, queryKey, whereKey } from './query-key';
