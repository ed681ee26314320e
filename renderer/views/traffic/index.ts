export { TrafficView, type TrafficViewProps, type LaunchSummary } from './traffic-view';
export { useTrafficLaunches } from './traffic-launches';
