export { TrafficStore, DEFAULT_TRAFFIC_CAPACITY, connectionOf, findMatches, methodMatcher, searchText, toJsonl } from './traffic-store';
export { parseQuery, formatQuery } from './filter';
export { rowSummary, progressText, resultText } from './summary';
export { lineDiff, type DiffLine } from './line-diff';
export type * from './types';
export { TrafficBodies, type BodyState } from './bodies';
