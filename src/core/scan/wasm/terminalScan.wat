;; Finds what a terminal would act on in UTF-8 output (src/cli/safeText.ts, the writer every human-readable
;; byte of pi-tree passes): a C0 byte other than LF and TAB, DEL, or the UTF-8 of a C1 control
;; (C2 80–9F), U+061C (D8 9C), U+200E/F and U+2028–202E (E2 80 8E/8F/A8–AE) or U+2066–2069 (E2 81
;; A6–A9). 16 bytes at a time, so that checking a tree of a million rows costs a few ms, not a third
;; of the command. Compiled by scripts/wasm.mjs into terminalScanBytes.ts; test/cli/safeText.test.ts
;; checks that the two agree and that the scan decides as the JavaScript loop does.
;;
;; Memory (layout.ts TERMINAL_LAYOUT): the JavaScript side copies up to WINDOW bytes at 0, the two bytes
;; after them (the rest of a character that starts in the last two) and PAD spaces after those.
(module
  (memory (export "memory") {{PAGES}})

  ;; Index of the first byte in [0, len) that starts such a character, else -1.
  (func (export "unsafe") (param $len i32) (result i32)
    (local $i i32) (local $v v128) (local $v1 v128) (local $v2 v128) (local $m i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $v1 (v128.load offset=1 (local.get $i)))
        (local.set $v2 (v128.load offset=2 (local.get $i)))
        (local.set $m
          (i8x16.bitmask
            (v128.or
              (v128.or
                ;; C0 but LF and TAB; DEL
                (v128.andnot
                  (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20)))
                  (v128.or
                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))
                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x09)))))
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x7f))))
              (v128.or
                (v128.or
                  ;; C2 80–9F
                  (v128.and
                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xc2)))
                    (i8x16.lt_u (i8x16.sub (local.get $v1) (i8x16.splat (i32.const 0x80))) (i8x16.splat (i32.const 0x20))))
                  ;; D8 9C
                  (v128.and
                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xd8)))
                    (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x9c)))))
                ;; E2 80 8E/8F/A8–AE, E2 81 A6–A9
                (v128.and
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0xe2)))
                  (v128.or
                    (v128.and
                      (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x80)))
                      (v128.or
                        (i8x16.lt_u (i8x16.sub (local.get $v2) (i8x16.splat (i32.const 0x8e))) (i8x16.splat (i32.const 2)))
                        (i8x16.lt_u (i8x16.sub (local.get $v2) (i8x16.splat (i32.const 0xa8))) (i8x16.splat (i32.const 7)))))
                    (v128.and
                      (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x81)))
                      (i8x16.lt_u (i8x16.sub (local.get $v2) (i8x16.splat (i32.const 0xa6))) (i8x16.splat (i32.const 4))))))))))
        ;; (the last vector: only the bytes before len)
        (if (i32.lt_u (i32.sub (local.get $len) (local.get $i)) (i32.const 16))
          (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $len) (local.get $i))) (i32.const 1))))))
        (if (local.get $m) (then (return (i32.add (local.get $i) (i32.ctz (local.get $m))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.const -1))
)
