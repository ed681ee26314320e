export { VirtualList, type VirtualListProps } from './virtual-list';
export { pageSize } from './layout';
export { useFrameVersion, type VersionedStore } from './use-frame-version';
export { FrameBudget } from './frame-budget';
