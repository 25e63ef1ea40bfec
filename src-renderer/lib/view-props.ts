/** Props shared by the views the main area shows (one project item, or the comparison). */
import type { AppState } from './state.svelte';

/** What the toolbar's CSV and PNG buttons call for the view on screen; null when it has nothing to export. */
export type ExportHandlers = { csv?: () => void; png?: () => void } | null;

/** A view of the whole project (e.g. the comparison). */
export interface ProjectViewProps {
  app: AppState;
  registerExport: (e: ExportHandlers) => void;
}

/** A view of one project item, by id. */
export interface ItemViewProps extends ProjectViewProps {
  id: string;
}
