export { TerminalView } from './terminal-view';
export { TerminalFeed } from './terminal-feed';
