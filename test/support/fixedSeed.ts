// Loaded before every test file (scripts/test.mjs): fast-check's property tests draw from one fixed seed,
// so a run of the suite is the same run each time (a statistical check such as "the pass applied in more
// than a fifth of the cases" cannot fail by chance in CI). FC_SEED=<n> replays another seed;
// FC_SEED=random draws a new one (printed when a property fails), to look for new counterexamples.
import fc from 'fast-check';

const wanted = process.env.FC_SEED;
if (wanted !== 'random') fc.configureGlobal({ seed: wanted ? Number(wanted) : 20261202 });
