export { TrafficView, type TrafficViewProps, type LaunchSummary } from './traffic-view';
