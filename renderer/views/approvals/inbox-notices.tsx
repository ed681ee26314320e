// The inbox's notice lines: one line per source of refused requests (e.g. "refused 496 requests
// from gateway pid 4242: limit 16 pending per gateway"), never a card per request.
import { Banner } from '../../components/banner';
import { useAppState } from '../../state/app-context';
import { useStore } from '../../state/store';

export function InboxNotices() {
  const { notices } = useAppState();
  const list = useStore(notices);
  if (list.length === 0) return null;
  return (
    <section aria-label="Inbox notices">
      {list.map((n) => (
        <Banner key={n.key} tone="warn">
          {n.text}
        </Banner>
      ))}
    </section>
  );
}
