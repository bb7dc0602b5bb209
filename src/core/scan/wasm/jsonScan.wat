;; The JSON validator of src/core/jsonValid.ts (scanValue) for bytes in this module's memory: the same
;; decisions (exactly what JSON.parse accepts) and the same facts about the outermost object's keys,
;; several times faster than the JavaScript loop (strings, most of a session's bytes, are skipped 16
;; bytes at a time). A listing reads session files straight into this memory and validates every message
;; line here. Compiled by scripts/wasm.mjs into jsonScanBytes.ts; test/core/jsonScanWasm.test.ts checks
;; that the two agree and that both decide as JSON.parse does.
;;
;; `scan` is made three times from the text between ";; scan{" and ";; }scan" (scripts/wasm.mjs): as
;; `scan` without the lines between ";; facts{" and ";; }facts" or ";; rows{" and ";; }rows"; as
;; `scanFacts`, without the rows lines, which also notes what stats reads of a message (below); and
;; whole as `scanRows`, which notes what a row of the tree reads too. So that opening a session pays
;; nothing for those notes, and stats nothing for the tree's.
;;
;; Memory: [0, 4) the keys of the last scan with keys (below), [4, 1024) scanFacts' notes (below), [1024, 1600)
;; scanRows' text notes (below), [1600, 1640) where $head found the fields, [2048, 2048 + 65536) the nesting
;; stack (1 object, 2 array), then the read buffers the JavaScript side hands out (four of 1 MiB: 72 pages).
;; Nesting deeper than the stack returns -2 (JavaScript decides).
(module
  (memory (export "memory") 72)
  ;; At address 0, of the last scan with keys: "role" keys (plus keys with an escape) | "type" keys << 2
  ;; (both up to 3) | a non-null "content" << 4 | a key with an escape << 5 | a "content" key << 6 |
  ;; toolCalls unsure << 7 | rows unsure << 8.
  ;; At 4, 8, 12: where the value of the outer object's (last) "usage", "provider" and "model" key starts
  ;; (0: no such key). At 16: the blocks of its (last) "content" array whose (last) "type" is the string
  ;; "toolCall", what stats counts; "unsure" when an element key or a "type" string had an escape.
  ;; What a row of the tree reads (rowFacts.ts), as [start, end) pairs of the outer object's (last) values
  ;; (0, 0: no such key; end is where the next key or the closing brace is, whitespace before it
  ;; included): at 20 "content", 28 "stopReason", 36 "errorMessage", 44 "toolCallId", 52 "toolName",
  ;; 60 "command". At 68 how many blocks of the (last) "content" array are noted, from 72 on each as
  ;; [start, end, kind] (1: the (last) "type" is the string "text", 2: "toolCall", 0: anything else),
  ;; up to 64 of them. Bit 8 at 0: these notes do not cover the message (more blocks, or an element
  ;; that is not an object).
  ;; So that the tree reads a text without a pass of its own over the bytes: at 1024 + 8k, of noted block
  ;; k, where the value of its (last) "text" key starts (0: no such key) and, when that value is a string
  ;; of printable ASCII (0x20 to 0x7e) without escapes, where it ends (after its closing quote; else 0).
  ;; At 1536 the same end for the outer (last) "content" value when it is such a string (else 0).

  ;; Index of the first byte in [i, end) that is '"', '\' or below 0x20, else end.
  (func $run (param $i i32) (param $end i32) (result i32)
    (local $v v128)
    (local $m i32)
    (block $bytes
      (loop $vectors
        (br_if $bytes (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $m
          (i8x16.bitmask
            (v128.or
              (v128.or
                (i8x16.eq (local.get $v) (v128.const i32x4 0x22222222 0x22222222 0x22222222 0x22222222))
                (i8x16.eq (local.get $v) (v128.const i32x4 0x5c5c5c5c 0x5c5c5c5c 0x5c5c5c5c 0x5c5c5c5c)))
              (i8x16.lt_u (local.get $v) (v128.const i32x4 0x20202020 0x20202020 0x20202020 0x20202020)))))
        (if (local.get $m) (then (return (i32.add (local.get $i) (i32.ctz (local.get $m))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $vectors)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $m (i32.load8_u (local.get $i)))
        (br_if $done
          (i32.or
            (i32.lt_u (local.get $m) (i32.const 0x20))
            (i32.or (i32.eq (local.get $m) (i32.const 0x22)) (i32.eq (local.get $m) (i32.const 0x5c)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $i))

  (func $isHex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  (func $isDigit (param $c i32) (result i32)
    (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))

  ;; Index after the closing quote of a string whose text starts at i, or -1.
  (func $string (param $i i32) (param $end i32) (result i32)
    (local $c i32)
    (loop $more
      (local.set $i (call $run (local.get $i) (local.get $end)))
      (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (i32.add (local.get $i) (i32.const 1)))))
      ;; a raw control character, or a cut escape
      (if (i32.or (i32.ne (local.get $c) (i32.const 0x5c)) (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
        (then (return (i32.const -1))))
      (local.set $c (i32.load8_u offset=1 (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 0x75))
        (then
          (if (i32.gt_u (i32.add (local.get $i) (i32.const 6)) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.eqz
                (i32.and
                  (i32.and (call $isHex (i32.load8_u offset=2 (local.get $i))) (call $isHex (i32.load8_u offset=3 (local.get $i))))
                  (i32.and (call $isHex (i32.load8_u offset=4 (local.get $i))) (call $isHex (i32.load8_u offset=5 (local.get $i))))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 6)))
          (br $more)))
      (if (i32.or
            (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))
              (i32.or (i32.eq (local.get $c) (i32.const 0x2f)) (i32.eq (local.get $c) (i32.const 0x62))))
            (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 0x66)) (i32.eq (local.get $c) (i32.const 0x6e)))
              (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x74)))))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 2)))
          (br $more)))
      (return (i32.const -1)))
    (i32.const -1))

  ;; Index after the digits starting at i (none is fine).
  (func $digits (param $i i32) (param $end i32) (result i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (br_if $done (i32.ge_u (i32.sub (i32.load8_u (local.get $i)) (i32.const 0x30)) (i32.const 10)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $i))

  ;; Index after a number of JSON's grammar starting at i, or -1.
  (func $number (param $i i32) (param $end i32) (result i32)
    (local $c i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2d)) (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.lt_u (i32.sub (local.get $c) (i32.const 0x31)) (i32.const 9))
          (then (local.set $i (call $digits (local.get $i) (local.get $end))))
          (else (return (i32.const -1))))))
    (if (i32.and (i32.lt_u (local.get $i) (local.get $end)) (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2e)))
      (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
        (if (i32.eqz (call $isDigit (i32.load8_u (local.get $i)))) (then (return (i32.const -1))))
        (local.set $i (call $digits (local.get $i) (local.get $end)))))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x65))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.lt_u (local.get $i) (local.get $end))
              (then
                (local.set $c (i32.load8_u (local.get $i)))
                (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
                  (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))))
            (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
            (if (i32.eqz (call $isDigit (i32.load8_u (local.get $i)))) (then (return (i32.const -1))))
            (local.set $i (call $digits (local.get $i) (local.get $end)))))))
    (local.get $i))

  ;; Index after the literal `lit` (its bytes little-endian, `n` of them: 4 or 5) at i, or -1.
  (func $literal (param $i i32) (param $end i32) (param $lit i64) (param $n i32) (result i32)
    (local $have i64)
    (if (i32.gt_u (i32.add (local.get $i) (local.get $n)) (local.get $end)) (then (return (i32.const -1))))
    (local.set $have (i64.extend_i32_u (i32.load (local.get $i))))
    (if (i32.eq (local.get $n) (i32.const 5))
      (then (local.set $have (i64.or (local.get $have) (i64.shl (i64.load8_u offset=4 (local.get $i)) (i64.const 32))))))
    (if (i64.ne (local.get $have) (local.get $lit)) (then (return (i32.const -1))))
    (i32.add (local.get $i) (local.get $n)))

  ;; Index of the first byte in [i, end) that is not JSON whitespace, else end. Compact JSON has none:
  ;; the first test ends most calls.
  (func $skipWs (param $i i32) (param $end i32) (result i32)
    (local $c i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $i)))
        (br_if $done (i32.gt_u (local.get $c) (i32.const 0x20)))
        (br_if $done
          (i32.eqz
            (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09)))
              (i32.or (i32.eq (local.get $c) (i32.const 0x0a)) (i32.eq (local.get $c) (i32.const 0x0d))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $i))

  ;; Whether a string whose text starts at s has a backslash before its closing quote within its first
  ;; 48 bytes: the most an escaped spelling of an 8-letter word can take (6 bytes a letter).
  (func $escapeSoon (param $s i32) (param $end i32) (result i32)
    (local $c i32)
    (local $stop i32)
    (local.set $stop (i32.add (local.get $s) (i32.const 48)))
    (if (i32.gt_u (local.get $stop) (local.get $end)) (then (local.set $stop (local.get $end))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $s) (local.get $stop)))
        (local.set $c (i32.load8_u (local.get $s)))
        (br_if $done (i32.eq (local.get $c) (i32.const 0x22)))
        (if (i32.eq (local.get $c) (i32.const 0x5c)) (then (return (i32.const 1))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $each)))
    (i32.const 0))

  (func $hasBackslash (param $s i32) (param $e i32) (result i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $s) (local.get $e)))
        (if (i32.eq (i32.load8_u (local.get $s)) (i32.const 0x5c)) (then (return (i32.const 1))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $each)))
    (i32.const 0))

  ;; Whether the bytes [i, end) of a string are printable ASCII without a backslash: what the tree copies as they are.
  (func $plain (param $i i32) (param $end i32) (result i32)
    (local $c i32)
    (block $bytes
      (loop $vectors
        (br_if $bytes (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
        (if (v128.any_true
              (v128.or
                (i8x16.eq (v128.load (local.get $i)) (v128.const i32x4 0x5c5c5c5c 0x5c5c5c5c 0x5c5c5c5c 0x5c5c5c5c))
                (i8x16.gt_u (v128.load (local.get $i)) (v128.const i32x4 0x7e7e7e7e 0x7e7e7e7e 0x7e7e7e7e 0x7e7e7e7e))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $vectors)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x5c)) (i32.gt_u (local.get $c) (i32.const 0x7e))) (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (i32.const 1))

  (func $min3 (param $n i32) (result i32)
    (select (local.get $n) (i32.const 3) (i32.lt_u (local.get $n) (i32.const 3))))

  ;; Index just after the JSON value at [start, end) (leading whitespace allowed), or -1 when JSON.parse
  ;; would reject it, or -2 when it nests deeper than the stack. `keys`: store the outer object's keys at 0.
  ;; scan{
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
    ;; facts{
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
    ;; the tree's notes do not cover the (last) content array (rows unsure, bit 8 at 0)
    (local $rowsUnsure i32)
    ;; rows{
    ;; the value next is a block's "text"; the string being read is one
    (local $textKey i32)
    (local $textStr i32)
    (i32.store (i32.const 1536) (i32.const 0))
    (v128.store (i32.const 20) (v128.const i32x4 0 0 0 0))
    (v128.store (i32.const 36) (v128.const i32x4 0 0 0 0))
    (v128.store (i32.const 52) (v128.const i32x4 0 0 0 0))
    (i32.store (i32.const 68) (i32.const 0))
    ;; }rows
    ;; }facts
    (local.set $i (local.get $start))
    (loop $step
      (if (i32.and (i32.eq (local.get $state) (i32.const 2)) (i32.eqz (local.get $depth)))
        (then
          (if (local.get $withKeys)
            (then
              (i32.store (i32.const 0)
                (i32.or
                  (i32.or (call $min3 (local.get $role)) (i32.shl (call $min3 (local.get $type)) (i32.const 2)))
                  (i32.or
                    (i32.or (i32.shl (local.get $content) (i32.const 4)) (i32.shl (local.get $escaped) (i32.const 5)))
                    (i32.shl (local.get $hasContent) (i32.const 6)))))
              ;; facts{
              (i32.store (i32.const 0) (i32.or (i32.load (i32.const 0)) (i32.shl (local.get $unsure) (i32.const 7))))
              ;; rows{
              (i32.store (i32.const 0) (i32.or (i32.load (i32.const 0)) (i32.shl (local.get $rowsUnsure) (i32.const 8))))
              ;; }rows
              (i32.store (i32.const 4) (local.get $usage))
              (i32.store (i32.const 8) (local.get $provider))
              (i32.store (i32.const 12) (local.get $model))
              (i32.store (i32.const 16) (local.get $toolCalls))
              ;; }facts
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
              ;; facts{
              (local.set $inContent (i32.eq (local.get $c) (i32.const 0x5b)))
              ;; rows{
              (i32.store (i32.const 20) (local.get $i))
              (local.set $endSlot (i32.const 24))
              (i32.store (i32.const 1536) (i32.const 0))
              ;; }rows
              ;; }facts
              (local.set $contentNext (i32.const 0))))
          ;; facts{
          (if (local.get $next)
            (then
              (if (i32.eq (local.get $next) (i32.const 1)) (then (local.set $usage (local.get $i))))
              (if (i32.eq (local.get $next) (i32.const 2)) (then (local.set $provider (local.get $i))))
              (if (i32.eq (local.get $next) (i32.const 3)) (then (local.set $model (local.get $i))))
              ;; rows{
              ;; 5 to 9: the tree's string slots, at 28, 36, ... 60
              (if (i32.ge_u (local.get $next) (i32.const 5))
                (then
                  (local.set $endSlot (i32.add (i32.const 32) (i32.shl (i32.sub (local.get $next) (i32.const 5)) (i32.const 3))))
                  (i32.store (i32.sub (local.get $endSlot) (i32.const 4)) (local.get $i))))
              ;; }rows
              (if (i32.eq (local.get $next) (i32.const 4))
                (then
                  ;; the string "toolCall" exactly (its letters, then the closing quote)
                  (local.set $isCall
                    (i32.and
                      (i32.eq (local.get $c) (i32.const 0x22))
                      (i32.and
                        (i64.eq (i64.load offset=1 (local.get $i)) (i64.const 0x6c6c61436c6f6f74))
                        (i32.eq (i32.load8_u offset=9 (local.get $i)) (i32.const 0x22)))))
                  ;; rows{
                  ;; the string "text" exactly
                  (local.set $isText
                    (i32.and
                      (i32.eq (local.get $c) (i32.const 0x22))
                      (i32.and
                        (i32.eq (i32.load offset=1 (local.get $i)) (i32.const 0x74786574))
                        (i32.eq (i32.load8_u offset=5 (local.get $i)) (i32.const 0x22)))))
                  ;; }rows
                  ;; another string with an escape may spell either too
                  (if (i32.and (i32.eqz (i32.or (local.get $isCall) (local.get $isText))) (i32.eq (local.get $c) (i32.const 0x22)))
                    (then (if (call $escapeSoon (i32.add (local.get $i) (i32.const 1)) (local.get $end)) (then (local.set $unsure (i32.const 1))))))))
              (local.set $next (i32.const 0))))
          ;; rows{
          ;; an element of the content array that is not an object: its rows are read another way
          (if (i32.and (local.get $inContent) (i32.eq (local.get $depth) (i32.const 2)))
            (then (if (i32.ne (local.get $c) (i32.const 0x7b)) (then (local.set $rowsUnsure (i32.const 1))))))
          (if (local.get $textKey)
            (then
              (i32.store offset=1024 (i32.shl (local.get $blocks) (i32.const 3)) (local.get $i))
              (i32.store offset=1028 (i32.shl (local.get $blocks) (i32.const 3)) (i32.const 0))
              (local.set $textStr (i32.eq (local.get $c) (i32.const 0x22)))
              (local.set $textKey (i32.const 0))))
          ;; }rows
          ;; }facts
          (if (i32.eq (local.get $c) (i32.const 0x22))
            (then
              (local.set $s (i32.add (local.get $i) (i32.const 1)))
              (local.set $i (call $string (local.get $s) (local.get $end)))
              (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
              ;; rows{
              (if (local.get $textStr)
                (then
                  (if (call $plain (local.get $s) (i32.sub (local.get $i) (i32.const 1)))
                    (then (i32.store offset=1028 (i32.shl (local.get $blocks) (i32.const 3)) (local.get $i))))
                  (local.set $textStr (i32.const 0))))
              (if (i32.and (i32.eq (local.get $endSlot) (i32.const 24)) (i32.eq (local.get $depth) (i32.const 1)))
                (then (if (call $plain (local.get $s) (i32.sub (local.get $i) (i32.const 1))) (then (i32.store (i32.const 1536) (local.get $i))))))
              ;; }rows
              (local.set $state (i32.const 2))
              (br $step)))
          (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b)) ;; { or [
            (then
              (if (i32.ge_u (local.get $depth) (i32.const 65536)) (then (return (i32.const -2))))
              ;; 1 object, 2 array
              (local.set $top (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
              (i32.store8 offset=2048 (local.get $depth) (local.get $top))
              (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
              ;; facts{
              ;; a block of the content array starts
              (if (i32.eq (local.get $depth) (i32.const 3)) (then (local.set $isCall (i32.const 0))))
              ;; rows{
              (if (i32.eq (local.get $depth) (i32.const 3))
                (then
                  (local.set $isText (i32.const 0))
                  (if (local.get $inContent)
                    (then
                      (if (i32.lt_u (local.get $blocks) (i32.const 64))
                        (then
                          (i32.store (i32.add (i32.const 72) (i32.mul (local.get $blocks) (i32.const 12))) (local.get $i))
                          (i64.store offset=1024 (i32.shl (local.get $blocks) (i32.const 3)) (i64.const 0)))
                        (else (local.set $rowsUnsure (i32.const 1))))))))
              ;; }rows
              ;; }facts
              (local.set $i (call $skipWs (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
              (if (i32.and
                    (i32.lt_u (local.get $i) (local.get $end))
                    (i32.eq (i32.load8_u (local.get $i)) (i32.add (local.get $c) (i32.const 2)))) ;; } or ]
                (then
                  ;; rows{
                  ;; an empty block of the content array
                  (if (i32.and (i32.eq (local.get $depth) (i32.const 3)) (i32.and (local.get $inContent) (i32.lt_u (local.get $blocks) (i32.const 64))))
                    (then
                      (i32.store offset=76 (i32.mul (local.get $blocks) (i32.const 12)) (i32.add (local.get $i) (i32.const 1)))
                      (i32.store offset=80 (i32.mul (local.get $blocks) (i32.const 12)) (i32.const 0))
                      (local.set $blocks (i32.add (local.get $blocks) (i32.const 1)))
                      (i32.store (i32.const 68) (local.get $blocks))))
                  ;; }rows
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
          ;; facts{
          (if (i32.and (local.get $withKeys) (i32.eq (local.get $depth) (i32.const 3)))
            (then
              (if (local.get $inContent)
                (then
                  (if (i32.and
                        (i32.eq (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $s)) (i32.const 4))
                        (i32.eq (i32.load (local.get $s)) (i32.const 0x65707974))) ;; type
                    (then (local.set $next (i32.const 4)))
                    (else
                      ;; rows{
                      (if (i32.and
                            (i32.and (i32.eq (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $s)) (i32.const 4)) (i32.lt_u (local.get $blocks) (i32.const 64)))
                            (i32.eq (i32.load (local.get $s)) (i32.const 0x74786574))) ;; text
                        (then (local.set $textKey (i32.const 1))))
                      ;; }rows
                      (if (call $hasBackslash (local.get $s) (i32.sub (local.get $i) (i32.const 1)))
                        (then (local.set $unsure (i32.const 1))))))))))
          ;; }facts
          (if (i32.and (local.get $withKeys) (i32.eq (local.get $depth) (i32.const 1)))
            (then
              ;; facts{
              (local.set $inContent (i32.const 0))
              ;; }facts
              ;; the key's length, its closing quote excluded
              (local.set $n (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $s)))
              ;; facts{
              (if (i32.and (i32.eq (local.get $n) (i32.const 5))
                    (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x67617375)) (i32.eq (i32.load8_u offset=4 (local.get $s)) (i32.const 0x65)))) ;; usage
                (then (local.set $next (i32.const 1))))
              (if (i32.and (i32.eq (local.get $n) (i32.const 8)) (i64.eq (i64.load (local.get $s)) (i64.const 0x72656469766f7270))) ;; provider
                (then (local.set $next (i32.const 2))))
              (if (i32.and (i32.eq (local.get $n) (i32.const 5))
                    (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x65646f6d)) (i32.eq (i32.load8_u offset=4 (local.get $s)) (i32.const 0x6c)))) ;; model
                (then (local.set $next (i32.const 3))))
              ;; rows{
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
              ;; }rows
              ;; }facts
              (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x656c6f72))) ;; role
                (then (local.set $role (i32.add (local.get $role) (i32.const 1))))
                (else
                  (if (i32.and
                        (i32.eq (local.get $n) (i32.const 7))
                        (i32.and (i32.eq (i32.load (local.get $s)) (i32.const 0x746e6f63)) (i32.eq (i32.load offset=3 (local.get $s)) (i32.const 0x746e6574)))) ;; content
                    (then
                      (local.set $contentNext (i32.const 1))
                      ;; facts{
                      (local.set $toolCalls (i32.const 0))
                      ;; rows{
                      (local.set $blocks (i32.const 0))
                      (i32.store (i32.const 68) (i32.const 0))
                      (local.set $rowsUnsure (i32.const 0))
                      ;; }rows
                      ;; }facts
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
      ;; rows{
      (if (i32.and (i32.ne (local.get $endSlot) (i32.const 0)) (i32.eq (local.get $depth) (i32.const 1)))
        (then
          (i32.store (local.get $endSlot) (local.get $i))
          (local.set $endSlot (i32.const 0))))
      ;; }rows
      (local.set $top (i32.load8_u offset=2047 (local.get $depth)))
      (if (i32.eq (local.get $c) (i32.const 0x2c))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (local.set $state (select (i32.const 1) (i32.const 0) (i32.eq (local.get $top) (i32.const 1))))
          (br $step)))
      (if (i32.or
            (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $top) (i32.const 1)))
            (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $top) (i32.const 2))))
        (then
          ;; facts{
          ;; a block of the content array ends
          (if (i32.eq (local.get $depth) (i32.const 3))
            (then
              (if (i32.and (local.get $inContent) (local.get $isCall))
                (then (local.set $toolCalls (i32.add (local.get $toolCalls) (i32.const 1)))))
              ;; rows{
              (if (i32.and (local.get $inContent) (i32.lt_u (local.get $blocks) (i32.const 64)))
                (then
                  (i32.store offset=76 (i32.mul (local.get $blocks) (i32.const 12)) (i32.add (local.get $i) (i32.const 1)))
                  (i32.store offset=80 (i32.mul (local.get $blocks) (i32.const 12))
                    (select (i32.const 2) (local.get $isText) (local.get $isCall)))
                  (local.set $blocks (i32.add (local.get $blocks) (i32.const 1)))
                  (i32.store (i32.const 68) (local.get $blocks))))
              ;; }rows
              (local.set $isCall (i32.const 0))
              (local.set $isText (i32.const 0))))
          ;; }facts
          (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $step)))
      (return (i32.const -1)))
    (i32.const -1))
  ;; }scan

  ;; [A-Za-z0-9_.:-]
  (func $idByte (param $c i32) (result i32)
    (i32.or
      (i32.or
        (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 26))
        (call $isDigit (local.get $c)))
      (i32.or
        (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.eq (local.get $c) (i32.const 0x5f)))
        (i32.or (i32.eq (local.get $c) (i32.const 0x2e)) (i32.eq (local.get $c) (i32.const 0x3a))))))

  ;; Index of the quote closing a token of id bytes that starts at pos (at most max + 1 of them), or -1.
  (func $token (param $pos i32) (param $end i32) (param $max i32) (result i32)
    (local $i i32)
    (local $lim i32)
    (local $c i32)
    (local.set $i (local.get $pos))
    (local.set $lim (i32.add (local.get $pos) (i32.add (local.get $max) (i32.const 1))))
    (if (i32.gt_u (local.get $lim) (local.get $end)) (then (local.set $lim (local.get $end))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $lim)))
        ;; (letters and digits, most of an id, without a call)
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eqz
              (i32.or
                (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 26))
                (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))))
          (then (br_if $done (i32.eqz (call $idByte (local.get $c))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (if (result i32)
      (i32.and
        (i32.and (i32.gt_u (local.get $i) (local.get $pos)) (i32.lt_u (local.get $i) (local.get $end)))
        (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x22)))
      (then (local.get $i))
      (else (i32.const -1))))

  ;; The digit at p, or 10000 for another byte (so that a field with one is out of every range below).
  (func $digit (param $p i32) (result i32)
    (local $d i32)
    (local.set $d (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)))
    (select (local.get $d) (i32.const 10000) (i32.lt_u (local.get $d) (i32.const 10))))

  (func $two (param $p i32) (result i32)
    (i32.add (i32.mul (call $digit (local.get $p)) (i32.const 10)) (call $digit (i32.add (local.get $p) (i32.const 1)))))

  ;; ms of the timestamp [i, e) when it is YYYY-MM-DDTHH:MM:SS.sssZ with every field in the ranges where
  ;; Date.parse gives Date.UTC of its fields (lineHead.ts isoTime: a year from 100 on, days 1-31 in any
  ;; month rolling over, hours 0-23); NaN for any other (JavaScript decides). The day count is
  ;; days_from_civil's (proleptic Gregorian, as ECMAScript's).
  (func $isoTime (param $i i32) (param $e i32) (result f64)
    (local $y i32)
    (local $m i32)
    (local $d i32)
    (local $h i32)
    (local $min i32)
    (local $sec i32)
    (local $ms i32)
    (local $era i32)
    (local $yoe i32)
    (if (i32.ne (i32.sub (local.get $e) (local.get $i)) (i32.const 24)) (then (return (f64.const nan))))
    (if (i32.or
          (i32.or
            (i32.or (i32.ne (i32.load8_u offset=4 (local.get $i)) (i32.const 0x2d)) (i32.ne (i32.load8_u offset=7 (local.get $i)) (i32.const 0x2d)))
            (i32.or (i32.ne (i32.load8_u offset=10 (local.get $i)) (i32.const 0x54)) (i32.ne (i32.load8_u offset=13 (local.get $i)) (i32.const 0x3a))))
          (i32.or
            (i32.or (i32.ne (i32.load8_u offset=16 (local.get $i)) (i32.const 0x3a)) (i32.ne (i32.load8_u offset=19 (local.get $i)) (i32.const 0x2e)))
            (i32.ne (i32.load8_u offset=23 (local.get $i)) (i32.const 0x5a))))
      (then (return (f64.const nan))))
    (local.set $y (i32.add (i32.mul (call $two (local.get $i)) (i32.const 100)) (call $two (i32.add (local.get $i) (i32.const 2)))))
    (local.set $m (call $two (i32.add (local.get $i) (i32.const 5))))
    (local.set $d (call $two (i32.add (local.get $i) (i32.const 8))))
    (local.set $h (call $two (i32.add (local.get $i) (i32.const 11))))
    (local.set $min (call $two (i32.add (local.get $i) (i32.const 14))))
    (local.set $sec (call $two (i32.add (local.get $i) (i32.const 17))))
    (local.set $ms (i32.add (i32.mul (call $two (i32.add (local.get $i) (i32.const 20))) (i32.const 10)) (call $digit (i32.add (local.get $i) (i32.const 22)))))
    (if (i32.or
          (i32.or
            (i32.or (i32.lt_u (local.get $y) (i32.const 100)) (i32.gt_u (local.get $y) (i32.const 9999)))
            (i32.or (i32.ge_u (i32.sub (local.get $m) (i32.const 1)) (i32.const 12)) (i32.ge_u (i32.sub (local.get $d) (i32.const 1)) (i32.const 31))))
          (i32.or
            (i32.or (i32.gt_u (local.get $h) (i32.const 23)) (i32.gt_u (local.get $min) (i32.const 59)))
            (i32.or (i32.gt_u (local.get $sec) (i32.const 59)) (i32.gt_u (local.get $ms) (i32.const 999)))))
      (then (return (f64.const nan))))
    ;; days from 1970-01-01 to the first of the month, then the day (past the month's end as Date.UTC rolls it)
    (if (i32.le_u (local.get $m) (i32.const 2))
      (then
        (local.set $y (i32.sub (local.get $y) (i32.const 1)))
        (local.set $m (i32.add (local.get $m) (i32.const 9))))
      (else (local.set $m (i32.sub (local.get $m) (i32.const 3)))))
    (local.set $era (i32.div_u (local.get $y) (i32.const 400)))
    (local.set $yoe (i32.sub (local.get $y) (i32.mul (local.get $era) (i32.const 400))))
    (local.set $d
      (i32.add
        (i32.sub
          (i32.add
            (i32.mul (local.get $era) (i32.const 146097))
            (i32.add
              (i32.sub
                (i32.add (i32.mul (local.get $yoe) (i32.const 365)) (i32.div_u (local.get $yoe) (i32.const 4)))
                (i32.div_u (local.get $yoe) (i32.const 100)))
              (i32.div_u (i32.add (i32.mul (local.get $m) (i32.const 153)) (i32.const 2)) (i32.const 5))))
          (i32.const 719468))
        (i32.sub (local.get $d) (i32.const 1))))
    (f64.add
      (f64.mul (f64.convert_i32_s (local.get $d)) (f64.const 86400000))
      (f64.convert_i32_u
        (i32.add
          (i32.add (i32.mul (local.get $h) (i32.const 3600000)) (i32.mul (local.get $min) (i32.const 60000)))
          (i32.add (i32.mul (local.get $sec) (i32.const 1000)) (local.get $ms))))))

  ;; The head of a message line [start, end) as pi writes it, {"type":"message","id":…,"parentId":…,
  ;; "timestamp":…,"message":{"role":… (lineHead.ts readHead decides the same): where the message object
  ;; starts (after ,"message":), -1 for any other line. Where its fields are, at 1600 on as [start, end)
  ;; pairs: the id, the parent id (0, 0: null), the timestamp's text, the role; at 1632 the timestamp's
  ;; ms when $isoTime knows them (an f64, else NaN).
  (func $head (export "head") (param $start i32) (param $end i32) (result i32)
    (local $i i32)
    (local $e i32)
    (local $k i32)
    (local.set $i (local.get $start))
    ;; {"type":"message","id":"
    (if (i32.gt_u (i32.add (local.get $i) (i32.const 24)) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.or
          (i64.ne (i64.load (local.get $i)) (i64.const 0x3a2265707974227b))
          (i32.or
            (i64.ne (i64.load offset=8 (local.get $i)) (i64.const 0x6567617373656d22))
            (i64.ne (i64.load offset=16 (local.get $i)) (i64.const 0x223a226469222c22))))
      (then (return (i32.const -1))))
    (local.set $e (call $token (i32.add (local.get $i) (i32.const 24)) (local.get $end) (i32.const 128)))
    (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
    (i32.store (i32.const 1600) (i32.add (local.get $i) (i32.const 24)))
    (i32.store (i32.const 1604) (local.get $e))
    (local.set $i (i32.add (local.get $e) (i32.const 1)))
    ;; ,"parentId": then null or an id
    (if (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.or
          (i64.ne (i64.load (local.get $i)) (i64.const 0x746e65726170222c))
          (i32.ne (i32.load offset=8 (local.get $i)) (i32.const 0x3a226449)))
      (then (return (i32.const -1))))
    (local.set $i (i32.add (local.get $i) (i32.const 12)))
    (if (i32.eq (i32.load (local.get $i)) (i32.const 0x6c6c756e))
      (then
        (i64.store (i32.const 1608) (i64.const 0))
        (local.set $i (i32.add (local.get $i) (i32.const 4))))
      (else
        (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x22)) (then (return (i32.const -1))))
        (local.set $e (call $token (i32.add (local.get $i) (i32.const 1)) (local.get $end) (i32.const 128)))
        (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
        (i32.store (i32.const 1608) (i32.add (local.get $i) (i32.const 1)))
        (i32.store (i32.const 1612) (local.get $e))
        (local.set $i (i32.add (local.get $e) (i32.const 1)))))
    ;; ,"timestamp":" then a plain string of at most 64 bytes
    (if (i32.gt_u (i32.add (local.get $i) (i32.const 14)) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.or
          (i64.ne (i64.load (local.get $i)) (i64.const 0x7473656d6974222c))
          (i32.or
            (i32.ne (i32.load offset=8 (local.get $i)) (i32.const 0x22706d61))
            (i32.ne (i32.load16_u offset=12 (local.get $i)) (i32.const 0x223a))))
      (then (return (i32.const -1))))
    (local.set $i (i32.add (local.get $i) (i32.const 14)))
    ;; (its first '"', '\\' or control character within 64 bytes; the 65th byte may close it)
    (local.set $k (i32.add (local.get $i) (i32.const 64)))
    (local.set $e (call $run (local.get $i) (select (local.get $end) (local.get $k) (i32.lt_u (local.get $end) (local.get $k)))))
    (if (i32.ge_u (local.get $e) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u (local.get $e)) (i32.const 0x22)) (then (return (i32.const -1))))
    (i32.store (i32.const 1616) (local.get $i))
    (i32.store (i32.const 1620) (local.get $e))
    (f64.store (i32.const 1632) (call $isoTime (local.get $i) (local.get $e)))
    (local.set $i (i32.add (local.get $e) (i32.const 1)))
    ;; ,"message":{"role":" then the role
    (if (i32.gt_u (i32.add (local.get $i) (i32.const 20)) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.or
          (i64.ne (i64.load (local.get $i)) (i64.const 0x67617373656d222c))
          (i32.or
            (i64.ne (i64.load offset=8 (local.get $i)) (i64.const 0x6c6f72227b3a2265))
            (i32.ne (i32.load offset=16 (local.get $i)) (i32.const 0x223a2265))))
      (then (return (i32.const -1))))
    (local.set $e (call $token (i32.add (local.get $i) (i32.const 20)) (local.get $end) (i32.const 64)))
    (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
    (i32.store (i32.const 1624) (i32.add (local.get $i) (i32.const 20)))
    (i32.store (i32.const 1628) (local.get $e))
    (i32.add (local.get $i) (i32.const 11)))

  ;; A message line [start, end) as pi writes it (see $head), and one JSON.parse accepts whole (the
  ;; message object with one "role" key, then only the closing brace): its role (1 user, 2 assistant, 0
  ;; another) | a "content" key << 4. -1 for any other line (JavaScript then decides what it is).
  (func (export "messageLine") (param $start i32) (param $end i32) (result i32)
    (local $i i32)
    (local $e i32)
    (local $n i32)
    (local $role i32)
    (local $k i32)
    (local.set $i (call $head (local.get $start) (local.get $end)))
    (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
    ;; $i is at the message object: the role is at 1624
    (local.set $i (i32.sub (local.get $i) (i32.const 11)))
    (local.set $n (i32.sub (i32.load (i32.const 1628)) (i32.load (i32.const 1624))))
    (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load offset=20 (local.get $i)) (i32.const 0x72657375))) ;; user
      (then (local.set $role (i32.const 1))))
    (if (i32.and
          (i32.eq (local.get $n) (i32.const 9))
          (i32.and
            (i64.eq (i64.load offset=20 (local.get $i)) (i64.const 0x6e61747369737361))
            (i32.eq (i32.load8_u offset=28 (local.get $i)) (i32.const 0x74)))) ;; assistant
      (then (local.set $role (i32.const 2))))
    ;; the message object (after ,"message":), valid, with one "role" key, then only the closing brace
    (local.set $e (call $scan (i32.add (local.get $i) (i32.const 11)) (local.get $end) (i32.const 1)))
    (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
    (local.set $k (i32.load (i32.const 0)))
    (if (i32.ne (i32.and (local.get $k) (i32.const 3)) (i32.const 1)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u (local.get $e)) (i32.const 0x7d)) (then (return (i32.const -1))))
    (local.set $e (i32.add (local.get $e) (i32.const 1)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $e) (local.get $end)))
        (local.set $n (i32.load8_u (local.get $e)))
        (if (i32.eqz
              (i32.or
                (i32.eq (local.get $n) (i32.const 0x20))
                (i32.or (i32.eq (local.get $n) (i32.const 0x09)) (i32.eq (local.get $n) (i32.const 0x0d)))))
          (then (return (i32.const -1))))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (br $each)))
    (i32.or (local.get $role) (i32.and (i32.shr_u (local.get $k) (i32.const 2)) (i32.const 16))))
)
