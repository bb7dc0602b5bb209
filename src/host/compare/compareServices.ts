// The services behind the code and compare views, made once at activation and handed to every tree: virtual
// documents for diffs, the hidden-branch marks, the family links, and compare panels.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { FamilyScope } from '../../core/listing/family.js';
import type { SessionInfo, SessionInfoCache } from '../../core/listing/sessionInfo.js';
import type { Session } from '../../core/session/session.js';
import { FamilyLinks } from '../family/familyLinks.js';
import { ChangeDocuments } from './changeDocuments.js';
import { ComparePanels, type CompareCode, type ComparePanel, type CompareTarget } from './comparePanel.js';
import { HiddenMarks } from './hiddenMarks.js';
import { WorkspaceState } from '../platform/workspaceState.js';
import type { SessionNames } from '../sessions/sessionNames.js';

export interface CompareServices {
  docs: ChangeDocuments;
  hidden: HiddenMarks;
  family: FamilyLinks;
  /** Opens a compare view of two nodes (of one session or of two sessions of a family). */
  compare(a: CompareTarget, b: CompareTarget): ComparePanel;
  /** Opens (or reveals) a session's tree with `select` selected. */
  openTree(file: string, select?: string): Promise<void>;
}

export interface CompareServiceDeps {
  context: vscode.ExtensionContext;
  acquire(file: string): Promise<{ session: Session; release: () => void }>;
  cache(): SessionInfoCache;
  /** The session folders pi-tree lists, for family links. */
  scope(): FamilyScope;
  known(): SessionInfo[];
  /** What a session is called (the sidebar's title), when it is listed. */
  describe(file: string): string | undefined;
  /** Every session's title by one rule (link nodes name the family's sessions by it). */
  names: SessionNames;
  openTree(file: string, select?: string): Promise<void>;
  /** Checkpoints: exact file lists and code diffs in the compare view. */
  code?: CompareCode;
}

export function createCompareServices(d: CompareServiceDeps): CompareServices & vscode.Disposable {
  const docs = new ChangeDocuments();
  const family = new FamilyLinks({
    cache: d.cache,
    scope: d.scope,
    known: d.known,
    acquire: d.acquire,
    names: d.names,
  });
  const panels = new ComparePanels({
    extensionUri: d.context.extensionUri,
    acquire: d.acquire,
    docs,
    openTree: d.openTree,
    describe: d.describe,
    code: d.code,
  });
  const title = (t: CompareTarget) => (d.describe(t.file) ?? basename(t.file)).slice(0, 30);
  return {
    docs,
    hidden: new HiddenMarks(new WorkspaceState(d.context.workspaceState)),
    family,
    compare: (a, b) =>
      panels.show(a, b, a.file === b.file ? `Compare: ${title(a)}` : `Compare: ${title(a)} ↔ ${title(b)}`),
    openTree: d.openTree,
    dispose: () => {
      panels.dispose();
      family.dispose();
      docs.dispose();
    },
  };
}
