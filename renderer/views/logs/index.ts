export { LogsView, type LogsViewProps, type LogsServer } from './logs-view';
