// The renderer reaches the host only through the HostApi interface from common/ (never through
// window globals directly): main.tsx picks the transport (Electron preload or WebSocket) once and
// provides it here.
import { createContext, useContext } from 'react';
import type { HostApi } from '../../common/host-api';

export const HostApiContext = createContext<HostApi | null>(null);

export function useHostApi(): HostApi {
  const api = useContext(HostApiContext);
  if (!api) throw new Error('useHostApi() outside <HostApiContext.Provider>');
  return api;
}
