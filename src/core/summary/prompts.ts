// Prompts for summaries, in pi-tree's own words but with pi 1.6.0's structure and section headings,
// so summaries read like pi's. The strings that end up *stored* in the session file (preamble,
// split-turn separator, empty-branch text) are pi's exact ones, so files look pi-made.

/** Stored: prepended to a branch summary's model text (pi's BRANCH_SUMMARY_PREAMBLE). */
export const BRANCH_SUMMARY_PREAMBLE =
  'The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n';
/** Stored: the summary of a branch whose entries carry no conversation (no model call). */
export const NO_CONTENT_SUMMARY = 'No content to summarize';
/** Stored: joins the history summary and the turn-prefix summary of a split-turn compaction. */
export const SPLIT_TURN_SEPARATOR = '\n\n---\n\n**Turn Context (split turn):**\n\n';
/** Stored: stands in for the history when a split turn has nothing before it. */
export const NO_PRIOR_HISTORY = 'No prior history.';

export const SUMMARY_SYSTEM_PROMPT = `You write summaries of conversations between a user and an AI coding assistant, so that the work can be picked up again from the summary alone.

You only summarize. Do not carry the conversation on and do not answer anything asked in it. Reply with the structured summary in the requested format and nothing else.`;

export const BRANCH_PROMPT = `Summarize the conversation branch above. The user is leaving this branch for now, and your summary is what will be remembered of it later.

Reply in exactly this layout:

## Goal
[What the user wanted to achieve on this branch]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Write "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work that was begun but not finished]

### Blocked
- [Anything that stopped progress]

## Key Decisions
- **[Decision]**: [The reason, briefly]

## Next Steps
1. [What to do next to carry this work forward]

Keep every section short. Quote file paths, function names and error messages exactly.`;

const COMPACTION_LAYOUT = `## Goal
[What the user wants to achieve; list several goals if the session moved between tasks]

## Constraints & Preferences
- [Requirements, limits or preferences the user stated]
- [Write "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [What is being worked on now]

### Blocked
- [Anything that stops progress]

## Key Decisions
- **[Decision]**: [The reason, briefly]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Facts, data or references needed to continue]
- [Write "(none)" if nothing applies]`;

export const COMPACTION_PROMPT = `Summarize the conversation above into a checkpoint. Another model will continue the work from this checkpoint instead of the full conversation.

Reply in exactly this layout:

${COMPACTION_LAYOUT}

Keep every section short. Quote file paths, function names and error messages exactly.`;

export const COMPACTION_UPDATE_PROMPT = `The conversation above holds NEW messages. Merge them into the summary given in the <previous-summary> tags:
- KEEP everything in the previous summary that still holds
- ADD the new progress, decisions and context
- MOVE items from "In Progress" to "Done" once they are finished
- REVISE "Next Steps" to match what has now been done
- KEEP file paths, function names and error messages exactly as written
- DROP only what is clearly no longer relevant

Reply in exactly this layout:

${COMPACTION_LAYOUT}

Keep every section short. Quote file paths, function names and error messages exactly.`;

export const TURN_PREFIX_PROMPT = `The conversation above is the beginning of a turn that is still going on. The rest of the turn is kept separately and must not be reconstructed.

Write a short checkpoint of what the user asked for and what has happened so far in these messages. It will be placed right before the rest of the turn so the work can go on.

## Original Request
[What the user asked for]

## Progress So Far
- [Work done and decisions taken in these messages]

## Context Needed to Continue
- [What from these messages is needed to follow the later work]

Use only what the messages above actually say; do not guess at what came later.`;

/** `base` plus the user's focus, formatted as pi adds custom instructions. */
export function withFocus(base: string, focus: string | undefined): string {
  return focus ? `${base}\n\nAdditional focus: ${focus}` : base;
}

export function conversationPrompt(conversation: string, instructions: string, previousSummary?: string): string {
  let text = `<conversation>\n${conversation}\n</conversation>\n\n`;
  if (previousSummary) text += `<previous-summary>\n${previousSummary}\n</previous-summary>\n\n`;
  return text + instructions;
}

export function turnPrefixPrompt(conversation: string, focus: string | undefined): string {
  return withFocus(`# Conversation\n${conversation}\n\n# Instructions\n${TURN_PREFIX_PROMPT}`, focus);
}
