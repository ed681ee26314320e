// Mounted once in the app: what the host says about a launch (`launch:notice`), e.g. the gateway's
// remembered port was taken, so a configuration copied from Connect must be copied again.
import { useEffect } from 'react';
import { useHostApi } from '../../api/context';
import { useToast } from '../../components/toasts';

export function LaunchNotices() {
  const api = useHostApi();
  const toast = useToast();
  useEffect(() => api.on('launch:notice', (e) => toast.show({ tone: 'warn', title: 'Gateway moved', detail: e.message })), [api, toast]);
  return null;
}
