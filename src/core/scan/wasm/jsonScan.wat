;; The JSON validator of src/core/scan/jsonValid.ts (scanValue) for bytes in this module's memory: the
;; same decisions (exactly what JSON.parse accepts) and the same facts about the outermost object's keys,
;; several times faster than the JavaScript loop (strings, most of a session's bytes, are skipped 16
;; bytes at a time). Session files are read straight into this memory (jsonScanWasm.ts takeReadBuffer)
;; and their message lines validated here. Compiled by scripts/wasm.mjs into jsonScanBytes.ts;
;; test/core/scan/jsonScanWasm.test.ts checks that the two agree and that both decide as JSON.parse does.
;;
;; A template (scripts/wasm.mjs), in three parts (jsonScan/): a name in double braces is a number of
;; layout.ts, the one table of this memory for the .wat and the TypeScript that reads it (what each
;; address holds is said there). `scan` holds parts marked (@facts …) and (@rows …) and is made once per
;; build of layout.ts SCAN_BUILDS: `scan` without them, `scanFacts` with the facts parts, which also
;; note what stats reads of a message, and `scanRows` with both, which note what a row of the tree
;; reads too.
;;
;; Memory: [KEYS, HEAD_ID) the keys and notes of the last scan with keys, [HEAD_ID, STACK) where $head
;; found the fields, then the nesting stack, then the read buffers the JavaScript side hands out.
(module
  (memory (export "memory") {{PAGES}})
  (@include "jsonScan/values.wat")
  (@include "jsonScan/scan.wat")
  (@include "jsonScan/head.wat")
)
