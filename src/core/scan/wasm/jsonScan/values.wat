;; The pieces of a JSON value for jsonScan.wat: strings (16 bytes at a time), numbers, literals,
;; whitespace, and the byte tests scan.wat notes with. Included into the module by scripts/wasm.mjs.

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
