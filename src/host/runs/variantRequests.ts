// What the host does for each request the variants view sends (validated by variantsProtocol.ts): the
// view names a variant by its place in the run and a file by its place in the variant's list; each is
// looked up in the run the panel holds, so every path opened or written comes from the core's outcome.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { dispatch, type HandlerTable } from '../../shared/messaging.js';
import type { VariantsReplies, VariantsRequest } from '../../variantsProtocol.js';
import { adoptVariantFiles, undoAdopt, type AdoptDeps } from './variantAdopt.js';
import type { VariantsRunState } from './variantsRunState.js';

/** What each handler works with: the run the panel holds and the host's parts. */
interface VariantsCx {
  state: VariantsRunState;
  deps: AdoptDeps;
}

const variantRequests: HandlerTable<VariantsRequest, VariantsReplies, VariantsCx> = {
  async cancel(b, _seq, { state }) {
    const run = state.run;
    if (!run || state.ended(b.index)) return { cancelling: false };
    run.cancel(b.index);
    return { cancelling: true };
  },
  async cancelAll(_b, _seq, { state }) {
    const running = state.outcomes.filter((_o, i) => !state.ended(i)).length;
    if (running) state.run?.cancel();
    return { cancelling: running };
  },
  async openSession(b, _seq, { state, deps }) {
    const o = state.outcome(b.index);
    if (!o.session || state.isDiscarded(b.index)) throw new Error(`Variant ${b.index + 1} has no session yet.`);
    await deps.openTree(o.session);
    return {};
  },
  async diffFile(b, _seq, { state, deps }) {
    const rel = state.file(b.index, b.file);
    const [, left, right] = await filePair(state, b.index, rel, deps);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${rel}: the node ↔ variant ${b.index + 1}`);
    return {};
  },
  async diffAll(b, _seq, { state, deps }) {
    const o = state.outcome(b.index);
    const files = o.files ?? [];
    if (!files.length) throw new Error(`Variant ${b.index + 1} changed no files.`);
    const resources = await Promise.all(
      files.map((f) => filePair(state, b.index, state.relativePath(b.index, f.path), deps)),
    );
    await vscode.commands.executeCommand(
      'vscode.changes',
      `Variant ${b.index + 1} (${o.model ?? "pi's default model"}): ${files.length} file${files.length === 1 ? '' : 's'}`,
      resources,
    );
    return { files: files.length };
  },
  async adopt(b, _seq, { state, deps }) {
    return { adopted: await adoptVariantFiles(deps, state, b.index) };
  },
  async undoAdopt(b, _seq, { state }) {
    return { undone: await undoAdopt(state, b.index) };
  },
  async discard(b, _seq, { state, deps }) {
    const o = state.outcome(b.index);
    if (!o.session || !o.variantId || state.isDiscarded(b.index))
      throw new Error(`Variant ${b.index + 1} has nothing to discard.`);
    if (!state.ended(b.index)) throw new Error(`Variant ${b.index + 1} is still running: cancel it first.`);
    const DISCARD = 'Discard';
    const pick = await vscode.window.showWarningMessage(
      `Discard variant ${b.index + 1} (${o.model ?? "pi's default model"})?`,
      {
        modal: true,
        detail:
          'Its folder and what its pi wrote there are removed. Its session stays, so its conversation can still be read. Files already adopted stay in your folder.',
      },
      DISCARD,
    );
    if (pick !== DISCARD) return { discarded: false };
    await deps.variants.discard({ variantId: o.variantId, session: o.session });
    state.markDiscarded(b.index);
    return { discarded: true };
  },
};

/** [the file, yours now, the variant's] for one changed file (an absent side is an empty document). */
/** A changed file of a variant: the node's version (from the variant's store) against the variant's. */
async function filePair(
  state: VariantsRunState,
  index: number,
  rel: string,
  deps: AdoptDeps,
): Promise<[vscode.Uri, vscode.Uri, vscode.Uri]> {
  const o = state.outcome(index);
  if (!o.folder) throw new Error(`Variant ${index + 1} has no folder yet.`);
  const mine = join(state.source.cwd, rel);
  const theirs = join(o.folder, rel);
  const atNode = await deps.variants.fileAtNode(o.folder, rel);
  const left = deps.docs.put(atNode, mine, atNode ? 'at the node' : 'absent at the node');
  const right = existsSync(theirs) ? vscode.Uri.file(theirs) : deps.docs.put(undefined, mine, 'deleted by the variant');
  return [vscode.Uri.file(mine), left, right];
}

export function handleVariantRequest(
  body: VariantsRequest,
  state: VariantsRunState,
  deps: AdoptDeps,
): Promise<VariantsReplies[VariantsRequest['kind']]> {
  return dispatch(variantRequests, body, 0, { state, deps });
}
