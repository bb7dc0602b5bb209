;; The JSON validator itself for jsonScan.wat: one state machine over the bytes of a value, whose
;; locals are its state (split into functions, each would load and store them through memory).
;; Included into the module by scripts/wasm.mjs, which makes it once per build of layout.ts SCAN_BUILDS.

;; Index just after the JSON value at [start, end) (leading whitespace allowed), or -1 when JSON.parse
;; would reject it, or -2 when it nests deeper than the stack. `keys`: store the outer object's keys at KEYS.
(func $scan (export "scan") (param $start i32) (param $end i32) (param $withKeys i32) (result i32)
  (local $i i32)
  (local $c i32)
  (local $depth i32)
  (local $state i32) ;; 0 a value, 1 a key, 2 after a value
  (local $top i32)
  (local $s i32)
  (local $n i32)
  (local $role i32)
  (local $type i32)
  (local $content i32)
  (local $escaped i32)
  (local $hasContent i32)
  (local $contentNext i32)
  (@facts
    ;; the value next is one noted: 1 the outer "usage", 2 "provider", 3 "model", 4 a content block's "type"
    (local $next i32)
    (local $usage i32)
    (local $provider i32)
    (local $model i32)
    ;; inside the outer "content" array; its "toolCall" blocks; the block being read is one
    (local $inContent i32)
    (local $toolCalls i32)
    (local $isCall i32)
    (local $unsure i32)
    ;; a "text" block; the slot of the value being read at depth 1 (its end is noted after it); blocks noted
    (local $isText i32)
    (local $endSlot i32)
    (local $blocks i32)
    ;; the tree's notes do not cover the (last) content array (ROWS_UNSURE_BIT)
    (local $rowsUnsure i32)
    (@rows
      ;; the value next is a block's "text"; the string being read is one
      (local $textKey i32)
      (local $textStr i32)
      (i32.store (i32.const {{CONTENT_PLAIN_END}}) (i32.const 0))
      (v128.store (i32.const {{CONTENT}}) (v128.const i32x4 0 0 0 0))
      (v128.store (i32.const {{CONTENT + 16}}) (v128.const i32x4 0 0 0 0))
      (v128.store (i32.const {{CONTENT + 32}}) (v128.const i32x4 0 0 0 0))
      (i32.store (i32.const {{BLOCK_COUNT}}) (i32.const 0))
    )
  )
  (local.set $i (local.get $start))
  (loop $step
    (if (i32.and (i32.eq (local.get $state) (i32.const 2)) (i32.eqz (local.get $depth)))
      (then
        (if (local.get $withKeys)
          (then
            (i32.store (i32.const {{KEYS}})
              (i32.or
                (i32.or (call $min3 (local.get $role)) (i32.shl (call $min3 (local.get $type)) (i32.const {{TYPE_SHIFT}})))
                (i32.or
                  (i32.or (i32.shl (local.get $content) (i32.const {{CONTENT_BIT}})) (i32.shl (local.get $escaped) (i32.const {{ESCAPED_BIT}})))
                  (i32.shl (local.get $hasContent) (i32.const {{HAS_CONTENT_BIT}})))))
            (@facts
              (i32.store (i32.const {{KEYS}}) (i32.or (i32.load (i32.const {{KEYS}})) (i32.shl (local.get $unsure) (i32.const {{FACTS_UNSURE_BIT}}))))
              (@rows
                (i32.store (i32.const {{KEYS}}) (i32.or (i32.load (i32.const {{KEYS}})) (i32.shl (local.get $rowsUnsure) (i32.const {{ROWS_UNSURE_BIT}}))))
              )
              (i32.store (i32.const {{USAGE}}) (local.get $usage))
              (i32.store (i32.const {{PROVIDER}}) (local.get $provider))
              (i32.store (i32.const {{MODEL}}) (local.get $model))
              (i32.store (i32.const {{TOOL_CALLS}}) (local.get $toolCalls))
            )
            ))
        (return (local.get $i))))
    (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.le_u (local.get $c) (i32.const 0x20))
      (then
        (local.set $i (call $skipWs (local.get $i) (local.get $end)))
        (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
        (local.set $c (i32.load8_u (local.get $i)))))
    (if (i32.eqz (local.get $state))
      (then
        (if (local.get $contentNext)
          (then
            (local.set $content (i32.ne (local.get $c) (i32.const 0x6e)))
            (@facts
              (local.set $inContent (i32.eq (local.get $c) (i32.const 0x5b)))
              (@rows
                (i32.store (i32.const {{CONTENT}}) (local.get $i))
                (local.set $endSlot (i32.const {{CONTENT + 4}}))
                (i32.store (i32.const {{CONTENT_PLAIN_END}}) (i32.const 0))
              )
            )
            (local.set $contentNext (i32.const 0))))
        (@facts
          (if (local.get $next)
            (then
              (if (i32.eq (local.get $next) (i32.const 1)) (then (local.set $usage (local.get $i))))
              (if (i32.eq (local.get $next) (i32.const 2)) (then (local.set $provider (local.get $i))))
              (if (i32.eq (local.get $next) (i32.const 3)) (then (local.set $model (local.get $i))))
              (@rows
                ;; 5 to 9: the tree's values from STOP_REASON on, a [start, end) pair (8 bytes) each
                (if (i32.ge_u (local.get $next) (i32.const 5))
                  (then
                    (local.set $endSlot (i32.add (i32.const {{STOP_REASON + 4}}) (i32.shl (i32.sub (local.get $next) (i32.const 5)) (i32.const 3))))
                    (i32.store (i32.sub (local.get $endSlot) (i32.const 4)) (local.get $i))))
              )
              (if (i32.eq (local.get $next) (i32.const 4))
                (then
                  ;; the string "toolCall" exactly (its letters, then the closing quote)
                  (local.set $isCall
                    (i32.and
                      (i32.eq (local.get $c) (i32.const 0x22))
                      (i32.and
                        (i64.eq (i64.load offset=1 (local.get $i)) (i64.const 0x6c6c61436c6f6f74))
                        (i32.eq (i32.load8_u offset=9 (local.get $i)) (i32.const 0x22)))))
                  (@rows
                    ;; the string "text" exactly
                    (local.set $isText
                      (i32.and
                        (i32.eq (local.get $c) (i32.const 0x22))
                        (i32.and
                          (i32.eq (i32.load offset=1 (local.get $i)) (i32.const 0x74786574))
                          (i32.eq (i32.load8_u offset=5 (local.get $i)) (i32.const 0x22)))))
                  )
                  ;; another string with an escape may spell either too
                  (if (i32.and (i32.eqz (i32.or (local.get $isCall) (local.get $isText))) (i32.eq (local.get $c) (i32.const 0x22)))
                    (then (if (call $escapeSoon (i32.add (local.get $i) (i32.const 1)) (local.get $end)) (then (local.set $unsure (i32.const 1))))))))
              (local.set $next (i32.const 0))))
          (@rows
            ;; an element of the content array that is not an object: its rows are read another way
            (if (i32.and (local.get $inContent) (i32.eq (local.get $depth) (i32.const 2)))
              (then (if (i32.ne (local.get $c) (i32.const 0x7b)) (then (local.set $rowsUnsure (i32.const 1))))))
            (if (local.get $textKey)
              (then
                (i32.store offset={{BLOCK_TEXTS}} (i32.shl (local.get $blocks) (i32.const 3)) (local.get $i))
                (i32.store offset={{BLOCK_TEXTS + 4}} (i32.shl (local.get $blocks) (i32.const 3)) (i32.const 0))
                (local.set $textStr (i32.eq (local.get $c) (i32.const 0x22)))
                (local.set $textKey (i32.const 0))))
          )
        )
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            (local.set $s (i32.add (local.get $i) (i32.const 1)))
            (local.set $i (call $string (local.get $s) (local.get $end)))
            (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
            (@rows
              (if (local.get $textStr)
                (then
                  (if (call $plain (local.get $s) (i32.sub (local.get $i) (i32.const 1)))
                    (then (i32.store offset={{BLOCK_TEXTS + 4}} (i32.shl (local.get $blocks) (i32.const 3)) (local.get $i))))
                  (local.set $textStr (i32.const 0))))
              (if (i32.and (i32.eq (local.get $endSlot) (i32.const {{CONTENT + 4}})) (i32.eq (local.get $depth) (i32.const 1)))
                (then (if (call $plain (local.get $s) (i32.sub (local.get $i) (i32.const 1))) (then (i32.store (i32.const {{CONTENT_PLAIN_END}}) (local.get $i))))))
            )
            (local.set $state (i32.const 2))
            (br $step)))
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b)) ;; { or [
          (then
            (if (i32.ge_u (local.get $depth) (i32.const {{STACK_SIZE}})) (then (return (i32.const -2))))
            ;; 1 object, 2 array
            (local.set $top (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
            (i32.store8 offset={{STACK}} (local.get $depth) (local.get $top))
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (@facts
              ;; a block of the content array starts
              (if (i32.eq (local.get $depth) (i32.const 3)) (then (local.set $isCall (i32.const 0))))
              (@rows
                (if (i32.eq (local.get $depth) (i32.const 3))
                  (then
                    (local.set $isText (i32.const 0))
                    (if (local.get $inContent)
                      (then
                        (if (i32.lt_u (local.get $blocks) (i32.const {{MAX_BLOCKS}}))
                          (then
                            (i32.store (i32.add (i32.const {{BLOCKS}}) (i32.mul (local.get $blocks) (i32.const {{BLOCK_SIZE}}))) (local.get $i))
                            (i64.store offset={{BLOCK_TEXTS}} (i32.shl (local.get $blocks) (i32.const 3)) (i64.const 0)))
                          (else (local.set $rowsUnsure (i32.const 1))))))))
              )
            )
            (local.set $i (call $skipWs (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
            (if (i32.and
                  (i32.lt_u (local.get $i) (local.get $end))
                  (i32.eq (i32.load8_u (local.get $i)) (i32.add (local.get $c) (i32.const 2)))) ;; } or ]
              (then
                (@rows
                  ;; an empty block of the content array
                  (if (i32.and (i32.eq (local.get $depth) (i32.const 3)) (i32.and (local.get $inContent) (i32.lt_u (local.get $blocks) (i32.const {{MAX_BLOCKS}}))))
                    (then
                      (i32.store offset={{BLOCKS + BLOCK_END}} (i32.mul (local.get $blocks) (i32.const {{BLOCK_SIZE}})) (i32.add (local.get $i) (i32.const 1)))
                      (i32.store offset={{BLOCKS + BLOCK_KIND}} (i32.mul (local.get $blocks) (i32.const {{BLOCK_SIZE}})) (i32.const 0))
                      (local.set $blocks (i32.add (local.get $blocks) (i32.const 1)))
                      (i32.store (i32.const {{BLOCK_COUNT}}) (local.get $blocks))))
                )
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (local.set $state (i32.const 2)))
              (else (local.set $state (select (i32.const 1) (i32.const 0) (i32.eq (local.get $top) (i32.const 1))))))
            (br $step)))
        (if (i32.eq (local.get $c) (i32.const 0x74))
          (then (local.set $i (call $literal (local.get $i) (local.get $end) (i64.const 0x65757274) (i32.const 4)))) ;; true
          (else
            (if (i32.eq (local.get $c) (i32.const 0x66))
              (then (local.set $i (call $literal (local.get $i) (local.get $end) (i64.const 0x65736c6166) (i32.const 5)))) ;; false
              (else
                (if (i32.eq (local.get $c) (i32.const 0x6e))
                  (then (local.set $i (call $literal (local.get $i) (local.get $end) (i64.const 0x6c6c756e) (i32.const 4)))) ;; null
                  (else
                    (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (call $isDigit (local.get $c)))
                      (then (local.set $i (call $number (local.get $i) (local.get $end))))
                      (else (return (i32.const -1))))))))))
        (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
        (local.set $state (i32.const 2))
        (br $step)))
    (if (i32.eq (local.get $state) (i32.const 1))
      (then
        (if (i32.ne (local.get $c) (i32.const 0x22)) (then (return (i32.const -1))))
        (local.set $s (i32.add (local.get $i) (i32.const 1)))
        (local.set $i (call $string (local.get $s) (local.get $end)))
        (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
        (@facts
          (if (i32.and (local.get $withKeys) (i32.eq (local.get $depth) (i32.const 3)))
            (then
              (if (local.get $inContent)
                (then
                  (if (i32.and
                        (i32.eq (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $s)) (i32.const 4))
                        (i32.eq (i32.load (local.get $s)) (i32.const 0x65707974))) ;; type
                    (then (local.set $next (i32.const 4)))
                    (else
                      (@rows
                        (if (i32.and
                              (i32.and (i32.eq (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $s)) (i32.const 4)) (i32.lt_u (local.get $blocks) (i32.const {{MAX_BLOCKS}})))
                              (i32.eq (i32.load (local.get $s)) (i32.const 0x74786574))) ;; text
                          (then (local.set $textKey (i32.const 1))))
                      )
                      (if (call $hasBackslash (local.get $s) (i32.sub (local.get $i) (i32.const 1)))
                        (then (local.set $unsure (i32.const 1))))))))))
        )
        (if (i32.and (local.get $withKeys) (i32.eq (local.get $depth) (i32.const 1)))
          (then
            (@facts
              (local.set $inContent (i32.const 0))
            )
            ;; the key's length, its closing quote excluded
            (local.set $n (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $s)))
            (@facts
              (if (i32.and (i32.eq (local.get $n) (i32.const 5))
                    (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x67617375)) (i32.eq (i32.load8_u offset=4 (local.get $s)) (i32.const 0x65)))) ;; usage
                (then (local.set $next (i32.const 1))))
              (if (i32.and (i32.eq (local.get $n) (i32.const 8)) (i64.eq (i64.load (local.get $s)) (i64.const 0x72656469766f7270))) ;; provider
                (then (local.set $next (i32.const 2))))
              (if (i32.and (i32.eq (local.get $n) (i32.const 5))
                    (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x65646f6d)) (i32.eq (i32.load8_u offset=4 (local.get $s)) (i32.const 0x6c)))) ;; model
                (then (local.set $next (i32.const 3))))
              (@rows
                ;; the tree's: stopReason, errorMessage, toolCallId, toolName, command
                (if (i32.and (i32.eq (local.get $n) (i32.const 10)) (i64.eq (i64.load (local.get $s)) (i64.const 0x73616552706f7473)))
                  (then (if (i32.eq (i32.load16_u offset=8 (local.get $s)) (i32.const 0x6e6f)) (then (local.set $next (i32.const 5))))))
                (if (i32.and (i32.eq (local.get $n) (i32.const 12)) (i64.eq (i64.load (local.get $s)) (i64.const 0x73654d726f727265)))
                  (then (if (i32.eq (i32.load offset=8 (local.get $s)) (i32.const 0x65676173)) (then (local.set $next (i32.const 6))))))
                (if (i32.and (i32.eq (local.get $n) (i32.const 10)) (i64.eq (i64.load (local.get $s)) (i64.const 0x6c6c61436c6f6f74)))
                  (then (if (i32.eq (i32.load16_u offset=8 (local.get $s)) (i32.const 0x6449)) (then (local.set $next (i32.const 7))))))
                (if (i32.and (i32.eq (local.get $n) (i32.const 8)) (i64.eq (i64.load (local.get $s)) (i64.const 0x656d614e6c6f6f74)))
                  (then (local.set $next (i32.const 8))))
                (if (i32.and (i32.eq (local.get $n) (i32.const 7))
                      (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x6d6d6f63)) (i32.eq (i32.load offset=3 (local.get $s)) (i32.const 0x646e616d))))
                  (then (local.set $next (i32.const 9))))
              )
            )
            (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x656c6f72))) ;; role
              (then (local.set $role (i32.add (local.get $role) (i32.const 1))))
              (else
                (if (i32.and
                      (i32.eq (local.get $n) (i32.const 7))
                      (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x746e6f63)) (i32.eq (i32.load offset=3 (local.get $s)) (i32.const 0x746e6574)))) ;; content
                  (then
                    (local.set $contentNext (i32.const 1))
                    (@facts
                      (local.set $toolCalls (i32.const 0))
                      (@rows
                        (local.set $blocks (i32.const 0))
                        (i32.store (i32.const {{BLOCK_COUNT}}) (i32.const 0))
                        (local.set $rowsUnsure (i32.const 0))
                      )
                    )
                    (local.set $hasContent (i32.const 1)))
                  (else
                    (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x65707974))) ;; type
                      (then (local.set $type (i32.add (local.get $type) (i32.const 1))))
                      (else
                        ;; a key with an escape may spell "role" once decoded: counted, so the caller falls back to JSON.parse
                        (if (call $hasBackslash (local.get $s) (i32.sub (local.get $i) (i32.const 1)))
                          (then
                            (local.set $role (i32.add (local.get $role) (i32.const 1)))
                            (local.set $escaped (i32.const 1))))))))))))
        (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
        (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x3a))
          (then
            (local.set $i (call $skipWs (local.get $i) (local.get $end)))
            (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
            (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x3a)) (then (return (i32.const -1))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (local.set $state (i32.const 0))
        (br $step)))
    ;; after a value, inside a container
    (@rows
      (if (i32.and (i32.ne (local.get $endSlot) (i32.const 0)) (i32.eq (local.get $depth) (i32.const 1)))
        (then
          (i32.store (local.get $endSlot) (local.get $i))
          (local.set $endSlot (i32.const 0))))
    )
    (local.set $top (i32.load8_u offset={{STACK - 1}} (local.get $depth)))
    (if (i32.eq (local.get $c) (i32.const 0x2c))
      (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (local.set $state (select (i32.const 1) (i32.const 0) (i32.eq (local.get $top) (i32.const 1))))
        (br $step)))
    (if (i32.or
          (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $top) (i32.const 1)))
          (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $top) (i32.const 2))))
      (then
        (@facts
          ;; a block of the content array ends
          (if (i32.eq (local.get $depth) (i32.const 3))
            (then
              (if (i32.and (local.get $inContent) (local.get $isCall))
                (then (local.set $toolCalls (i32.add (local.get $toolCalls) (i32.const 1)))))
              (@rows
                (if (i32.and (local.get $inContent) (i32.lt_u (local.get $blocks) (i32.const {{MAX_BLOCKS}})))
                  (then
                    (i32.store offset={{BLOCKS + BLOCK_END}} (i32.mul (local.get $blocks) (i32.const {{BLOCK_SIZE}})) (i32.add (local.get $i) (i32.const 1)))
                    ;; (KIND_TEXT is 1: the $isText flag)
                    (i32.store offset={{BLOCKS + BLOCK_KIND}} (i32.mul (local.get $blocks) (i32.const {{BLOCK_SIZE}}))
                      (select (i32.const {{KIND_TOOL_CALL}}) (local.get $isText) (local.get $isCall)))
                    (local.set $blocks (i32.add (local.get $blocks) (i32.const 1)))
                    (i32.store (i32.const {{BLOCK_COUNT}}) (local.get $blocks))))
              )
              (local.set $isCall (i32.const 0))
              (local.set $isText (i32.const 0))))
        )
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $step)))
    (return (i32.const -1)))
  (i32.const -1))
