export { ALL_SERVERS, LogStore, LogSource, DEFAULT_LOG_CAPACITY, plainText, sourceKey, type LogEntry, type LogHit, type LogStats, type StderrLine } from './log-store';
