// Which side panes are shown (the outline list, the details pane): classes on the app root, from the
// persisted UI state.

export class Panes {
  constructor(
    private readonly root: HTMLElement,
    private readonly state: { outline: boolean; details: boolean },
  ) {
    this.apply();
  }

  toggle(pane: 'outline' | 'details'): void {
    this.state[pane] = !this.state[pane];
    this.apply();
  }

  show(pane: 'outline' | 'details'): void {
    this.state[pane] = true;
    this.apply();
  }

  private apply(): void {
    this.root.classList.toggle('no-outline', !this.state.outline);
    this.root.classList.toggle('no-details', !this.state.details);
  }
}
