// UI state that survives hiding, reloading and restarting: read once from VS Code's getState and written
// back with setState a little after the last change. What is kept, and how it is checked, is
// model/savedState.ts; the app supplies the live parts (selection, view, folds) when saving.
import { capIds, restoreState, STATE_VERSION, type SavedState, type ViewState } from '../model/savedState';
import { after, cancelAfter } from '../ui/schedule';
import type { VsCodeApi } from './hostChannel';

export interface LiveState {
  sessionId?: string;
  restoreToken?: string;
  selected?: string;
  view: ViewState;
  expanded: Iterable<string>;
  folded: Iterable<string>;
}

export class Persistence {
  /** Filter, query and panes live here; the rest is collected when saving. */
  readonly state: SavedState;
  private timer = 0;

  constructor(
    private readonly api: Pick<VsCodeApi, 'getState' | 'setState'>,
    private readonly collect: () => LiveState,
  ) {
    this.state = restoreState(api.getState());
  }

  save(): void {
    this.api.setState(this.snapshot());
  }

  scheduleSave(): void {
    cancelAfter(this.timer);
    this.timer = after(250, () => this.save());
  }

  /** The saved selection and view, when they belong to session `sessionId`. */
  savedView(sessionId: string | undefined): { selected?: string; view?: ViewState } | undefined {
    return this.state.sessionId === sessionId ? { selected: this.state.selected, view: this.state.view } : undefined;
  }

  private snapshot(): SavedState {
    const live = this.collect();
    return {
      v: STATE_VERSION,
      sessionId: live.sessionId ?? this.state.sessionId,
      restoreToken: live.restoreToken ?? this.state.restoreToken,
      selected: live.selected,
      view: live.view,
      filter: this.state.filter,
      query: this.state.query,
      expanded: capIds(live.expanded),
      folded: capIds(live.folded),
      outline: this.state.outline,
      details: this.state.details,
      ...(this.state.layout ? { layout: this.state.layout } : {}),
    };
  }
}
