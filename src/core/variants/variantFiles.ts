// A variant's files at the node it was made from: the left side when the user compares one of its
// changed files (the node's version against the variant's, whatever the user's folder holds now).
import { folderFileAtBase, readCheckpointSettings } from '../checkpoints/index.js';
import { variantAt } from './variantRecords.js';

/** The bytes of `path` (relative, as its outcome lists it) at the variant's node; undefined when the node had no such file. */
export async function variantFileAtNode(
  agentDir: string,
  folder: string,
  path: string,
  env?: NodeJS.ProcessEnv,
): Promise<Buffer | undefined> {
  const rec = variantAt(agentDir, folder);
  if (!rec?.code) throw new Error(`${folder} is not a variant's folder pi-tree made`);
  return folderFileAtBase({
    agentDir,
    settings: readCheckpointSettings(agentDir),
    folder: rec.folder,
    baseTree: rec.code.tree,
    path,
    env,
  });
}
