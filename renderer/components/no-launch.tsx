import type { ReactNode } from 'react';
import { navigate } from '../state/nav-store';
import { Button } from './button';
import { EmptyState } from './empty-state';
import { PageHeader } from './page-header';

/**
 * What a view that works on the active launch shows while none runs: its title, what it would
 * show (`children`) and the way to Profiles, where a launch starts.
 */
export function NoLaunchView({ title, icon, children }: { title: string; icon: ReactNode; children: ReactNode }) {
  return (
    <div className="view">
      <PageHeader title={title} />
      <EmptyState icon={icon} title="No running launch" action={<Button variant="primary" onClick={() => navigate('profiles')}>Go to Profiles</Button>}>
        {children}
      </EmptyState>
    </div>
  );
}
