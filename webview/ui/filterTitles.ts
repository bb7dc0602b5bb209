// How the filter modes of pi's /tree (src/shared/treeFilter.ts) are named in the toolbar, status and announcements.
import type { FilterMode } from '../../src/shared/treeFilter';

export const FILTER_TITLES: Record<FilterMode, string> = {
  default: 'Default',
  'no-tools': 'No tools',
  'user-only': 'User messages',
  'labeled-only': 'Labelled',
  all: 'All entries',
};
