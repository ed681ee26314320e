import { createContext, useContext } from 'react';
import type { AppState } from './app-state';

export const AppStateContext = createContext<AppState | null>(null);

export function useAppState(): AppState {
  const s = useContext(AppStateContext);
  if (!s) throw new Error('useAppState() outside <AppStateContext.Provider>');
  return s;
}
