// One-line inbox notices from the host (`approval:notice`, `host:snapshot.approvalNotices`):
// things a person should know about but cannot answer, such as requests the approvals relay
// refused. One line per key, its count updated in place, newest first.
import { Store } from './store';
import type { InboxNotice } from './types';

export const NOTICES_LIMIT = 32;

export class NoticesStore extends Store<InboxNotice[]> {
  constructor() {
    super([]);
  }

  replace(notices: InboxNotice[]): void {
    this.set([...notices].sort((a, b) => b.at - a.at).slice(0, NOTICES_LIMIT));
  }

  upsert(notice: InboxNotice): void {
    this.update((list) => [notice, ...list.filter((n) => n.key !== notice.key)].slice(0, NOTICES_LIMIT));
  }
}
