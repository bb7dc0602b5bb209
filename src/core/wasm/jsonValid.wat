;; The JSON validator of src/core/jsonValid.ts, in WebAssembly: decides, on the raw bytes, exactly what
;; JSON.parse would accept. Strings (most of a session's bytes) are skipped 16 bytes at a time with SIMD.
;; Compiled by scripts/build-wasm.mjs into jsonValid.wasm.ts; differentially tested against JSON.parse
;; (test/core/fastPath.test.ts, test/core/wasmValid.test.ts).
;;
;; Memory: bytes [0, 65536) hold the container stack (one byte per depth), data is copied in at 65536.
;; validate(s, e, keys) scans the value at [s, e) and returns the index just after it, -1 when JSON.parse
;; would reject it, -2 when it nests deeper than the stack (the caller then uses the JS validator).
;; With keys = 1, the globals tell about the outermost object: $role counts keys spelled "role" plus keys
;; with an escape (which may spell it once decoded), $content whether the last "content" key's value is
;; not null.
(module
  (memory (export "memory") 18)
  (global $role (export "role") (mut i32) (i32.const 0))
  (global $content (export "content") (mut i32) (i32.const 0))

  (func $isHex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  (func $isDigit (param $c i32) (result i32)
    (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))

  (func $ws (param $i i32) (param $e i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $e)))
        (local.set $c (i32.load8_u (local.get $i)))
        (br_if $done
          (i32.eqz
            (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09)))
              (i32.or (i32.eq (local.get $c) (i32.const 0x0a)) (i32.eq (local.get $c) (i32.const 0x0d))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $i))

  ;; Index after the closing quote of a string whose text starts at $i, or -1.
  (func $str (param $i i32) (param $e i32) (result i32)
    (local $c i32) (local $m i32) (local $x i32) (local $v v128)
    (loop $top
      ;; 16 bytes at a time while they fit: any control byte, quote or backslash stops it.
      (block $found
        (loop $simd
          (br_if $found (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $e)))
          (local.set $v (v128.load align=1 (local.get $i)))
          (local.set $m
            (i8x16.bitmask
              (v128.or
                (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20))
                (v128.or
                  (i8x16.eq (local.get $v) (v128.const i8x16 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22))
                  (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c))))))
          (if (local.get $m)
            (then
              (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
              (br $found)))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $simd)))
      ;; byte by byte (the tail, or the stop byte found above)
      (block $stop
        (loop $scalar
          (if (i32.ge_u (local.get $i) (local.get $e)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u (local.get $i)))
          (br_if $stop
            (i32.or
              (i32.lt_u (local.get $c) (i32.const 0x20))
              (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $scalar)))
      (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (i32.add (local.get $i) (i32.const 1)))))
      ;; a raw control character, or a cut escape
      (if (i32.lt_u (local.get $c) (i32.const 0x20)) (then (return (i32.const -1))))
      (if (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $e)) (then (return (i32.const -1))))
      (local.set $x (i32.load8_u (i32.add (local.get $i) (i32.const 1))))
      (if (i32.eq (local.get $x) (i32.const 0x75))
        (then
          (if (i32.gt_u (i32.add (local.get $i) (i32.const 6)) (local.get $e)) (then (return (i32.const -1))))
          (if (i32.eqz
                (i32.and
                  (i32.and (call $isHex (i32.load8_u (i32.add (local.get $i) (i32.const 2)))) (call $isHex (i32.load8_u (i32.add (local.get $i) (i32.const 3)))))
                  (i32.and (call $isHex (i32.load8_u (i32.add (local.get $i) (i32.const 4)))) (call $isHex (i32.load8_u (i32.add (local.get $i) (i32.const 5)))))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 6)))
          (br $top)))
      (if (i32.or
            (i32.or
              (i32.or (i32.eq (local.get $x) (i32.const 0x22)) (i32.eq (local.get $x) (i32.const 0x5c)))
              (i32.or (i32.eq (local.get $x) (i32.const 0x2f)) (i32.eq (local.get $x) (i32.const 0x62))))
            (i32.or
              (i32.or (i32.eq (local.get $x) (i32.const 0x66)) (i32.eq (local.get $x) (i32.const 0x6e)))
              (i32.or (i32.eq (local.get $x) (i32.const 0x72)) (i32.eq (local.get $x) (i32.const 0x74)))))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 2)))
          (br $top))))
    (i32.const -1))

  (func $digits (param $i i32) (param $e i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $e)))
        (br_if $done (i32.eqz (call $isDigit (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $i))

  ;; Index after a number of JSON's grammar starting at $i, or -1.
  (func $num (param $i i32) (param $e i32) (result i32)
    (local $c i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2d)) (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (if (i32.ge_u (local.get $i) (local.get $e)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.lt_u (i32.sub (local.get $c) (i32.const 0x31)) (i32.const 9))
          (then (local.set $i (call $digits (i32.add (local.get $i) (i32.const 1)) (local.get $e))))
          (else (return (i32.const -1))))))
    (if (i32.lt_u (local.get $i) (local.get $e))
      (then
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2e))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.ge_u (local.get $i) (local.get $e)) (then (return (i32.const -1))))
            (if (i32.eqz (call $isDigit (i32.load8_u (local.get $i)))) (then (return (i32.const -1))))
            (local.set $i (call $digits (local.get $i) (local.get $e)))))))
    (if (i32.lt_u (local.get $i) (local.get $e))
      (then
        (if (i32.eq (i32.or (i32.load8_u (local.get $i)) (i32.const 0x20)) (i32.const 0x65))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.lt_u (local.get $i) (local.get $e))
              (then
                (local.set $c (i32.load8_u (local.get $i)))
                (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
                  (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))))
            (if (i32.ge_u (local.get $i) (local.get $e)) (then (return (i32.const -1))))
            (if (i32.eqz (call $isDigit (i32.load8_u (local.get $i)))) (then (return (i32.const -1))))
            (local.set $i (call $digits (local.get $i) (local.get $e)))))))
    (local.get $i))

  ;; Whether [$s, $e) holds a backslash.
  (func $hasBackslash (param $s i32) (param $e i32) (result i32)
    (block $no
      (loop $next
        (br_if $no (i32.ge_u (local.get $s) (local.get $e)))
        (if (i32.eq (i32.load8_u (local.get $s)) (i32.const 0x5c)) (then (return (i32.const 1))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $next)))
    (i32.const 0))

  (func $validate (export "validate") (param $s i32) (param $e i32) (param $keys i32) (result i32)
    (local $i i32) (local $c i32) (local $depth i32) (local $state i32) (local $top i32)
    (local $role i32) (local $content i32) (local $contentNext i32) (local $ks i32) (local $len i32)
    ;; state: 0 a value is next, 1 a key is next, 2 after a value
    (local.set $i (local.get $s))
    (loop $main
      (if (i32.and (i32.eq (local.get $state) (i32.const 2)) (i32.eqz (local.get $depth)))
        (then
          (global.set $role (local.get $role))
          (global.set $content (local.get $content))
          (return (local.get $i))))
      (local.set $i (call $ws (local.get $i) (local.get $e)))
      (if (i32.ge_u (local.get $i) (local.get $e)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.eqz (local.get $state))
        (then
          (if (local.get $contentNext)
            (then
              (local.set $content (i32.ne (local.get $c) (i32.const 0x6e)))
              (local.set $contentNext (i32.const 0))))
          (if (i32.eq (local.get $c) (i32.const 0x22))
            (then
              (local.set $i (call $str (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
              (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
              (local.set $state (i32.const 2))
              (br $main)))
          (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b)) ;; { or [
            (then
              (if (i32.ge_u (local.get $depth) (i32.const 65536)) (then (return (i32.const -2))))
              (i32.store8 (local.get $depth) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
              (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
              (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $e)))
              (if (i32.and
                    (i32.lt_u (local.get $i) (local.get $e))
                    (i32.eq (i32.load8_u (local.get $i)) (i32.add (local.get $c) (i32.const 2)))) ;; } or ]
                (then
                  (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (local.set $state (i32.const 2)))
                (else
                  (local.set $state (select (i32.const 1) (i32.const 0) (i32.eq (local.get $c) (i32.const 0x7b))))))
              (br $main)))
          (if (i32.eq (local.get $c) (i32.const 0x74)) ;; true
            (then
              (if (i32.or (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $e))
                    (i32.ne (i32.load align=1 (local.get $i)) (i32.const 0x65757274)))
                (then (return (i32.const -1))))
              (local.set $i (i32.add (local.get $i) (i32.const 4)))
              (local.set $state (i32.const 2))
              (br $main)))
          (if (i32.eq (local.get $c) (i32.const 0x66)) ;; false
            (then
              (if (i32.or (i32.gt_u (i32.add (local.get $i) (i32.const 5)) (local.get $e))
                    (i32.or
                      (i32.ne (i32.load align=1 (local.get $i)) (i32.const 0x736c6166))
                      (i32.ne (i32.load8_u (i32.add (local.get $i) (i32.const 4))) (i32.const 0x65))))
                (then (return (i32.const -1))))
              (local.set $i (i32.add (local.get $i) (i32.const 5)))
              (local.set $state (i32.const 2))
              (br $main)))
          (if (i32.eq (local.get $c) (i32.const 0x6e)) ;; null
            (then
              (if (i32.or (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $e))
                    (i32.ne (i32.load align=1 (local.get $i)) (i32.const 0x6c6c756e)))
                (then (return (i32.const -1))))
              (local.set $i (i32.add (local.get $i) (i32.const 4)))
              (local.set $state (i32.const 2))
              (br $main)))
          (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (call $isDigit (local.get $c)))
            (then
              (local.set $i (call $num (local.get $i) (local.get $e)))
              (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
              (local.set $state (i32.const 2))
              (br $main)))
          (return (i32.const -1))))
      (if (i32.eq (local.get $state) (i32.const 1))
        (then
          (if (i32.ne (local.get $c) (i32.const 0x22)) (then (return (i32.const -1))))
          (local.set $ks (i32.add (local.get $i) (i32.const 1)))
          (local.set $i (call $str (local.get $ks) (local.get $e)))
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (if (i32.and (local.get $keys) (i32.eq (local.get $depth) (i32.const 1)))
            (then
              (local.set $len (i32.sub (i32.sub (local.get $i) (i32.const 1)) (local.get $ks)))
              (if (i32.and (i32.eq (local.get $len) (i32.const 4)) (i32.eq (i32.load align=1 (local.get $ks)) (i32.const 0x656c6f72))) ;; role
                (then (local.set $role (i32.add (local.get $role) (i32.const 1))))
                (else
                  (if (i32.and
                        (i32.eq (local.get $len) (i32.const 7))
                        (i32.and
                          (i32.eq (i32.load align=1 (local.get $ks)) (i32.const 0x746e6f63)) ;; cont
                          (i32.and
                            (i32.eq (i32.load16_u align=1 (i32.add (local.get $ks) (i32.const 4))) (i32.const 0x6e65)) ;; en
                            (i32.eq (i32.load8_u (i32.add (local.get $ks) (i32.const 6))) (i32.const 0x74))))) ;; t
                    (then (local.set $contentNext (i32.const 1)))
                    (else
                      (if (call $hasBackslash (local.get $ks) (i32.sub (local.get $i) (i32.const 1)))
                        (then (local.set $role (i32.add (local.get $role) (i32.const 1)))))))))))
          (local.set $i (call $ws (local.get $i) (local.get $e)))
          (if (i32.or (i32.ge_u (local.get $i) (local.get $e)) (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x3a)))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (local.set $state (i32.const 0))
          (br $main)))
      ;; after a value, inside a container
      (local.set $top (i32.load8_u (i32.sub (local.get $depth) (i32.const 1))))
      (if (i32.eq (local.get $c) (i32.const 0x2c))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (local.set $state (select (i32.const 1) (i32.const 0) (i32.eq (local.get $top) (i32.const 1))))
          (br $main)))
      (if (i32.or
            (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $top) (i32.const 1)))
            (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $top) (i32.const 2))))
        (then
          (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $main)))
      (return (i32.const -1)))
    (i32.const -1))
)
