;; A message line's head for jsonScan.wat, as pi writes it (lineHead.ts readHead decides the same):
;; where its id, parent, timestamp and role are, its time from the digits, and messageLine, the
;; listing's verdict on a whole line. Included into the module by scripts/wasm.mjs.

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
;; starts (after ,"message":), -1 for any other line. Where its fields are, from HEAD_ID on as [start,
;; end) pairs: the id, the parent id (0, 0: null), the timestamp's text, the role; at HEAD_MS the
;; timestamp's ms when $isoTime knows them (an f64, else NaN).
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
  (i32.store (i32.const {{HEAD_ID}}) (i32.add (local.get $i) (i32.const 24)))
  (i32.store (i32.const {{HEAD_ID_END}}) (local.get $e))
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
      (i64.store (i32.const {{HEAD_PARENT}}) (i64.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 4))))
    (else
      (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x22)) (then (return (i32.const -1))))
      (local.set $e (call $token (i32.add (local.get $i) (i32.const 1)) (local.get $end) (i32.const 128)))
      (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
      (i32.store (i32.const {{HEAD_PARENT}}) (i32.add (local.get $i) (i32.const 1)))
      (i32.store (i32.const {{HEAD_PARENT_END}}) (local.get $e))
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
  (i32.store (i32.const {{HEAD_TIME}}) (local.get $i))
  (i32.store (i32.const {{HEAD_TIME_END}}) (local.get $e))
  (f64.store (i32.const {{HEAD_MS}}) (call $isoTime (local.get $i) (local.get $e)))
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
  (i32.store (i32.const {{HEAD_ROLE}}) (i32.add (local.get $i) (i32.const 20)))
  (i32.store (i32.const {{HEAD_ROLE_END}}) (local.get $e))
  (i32.add (local.get $i) (i32.const 11)))

;; A message line [start, end) as pi writes it (see $head), and one JSON.parse accepts whole (the
;; message object with one "role" key, then only the closing brace): its role (1 user, 2 assistant, 0
;; another) | a "content" key << MESSAGE_CONTENT_BIT. -1 for any other line (JavaScript then decides what it is).
(func (export "messageLine") (param $start i32) (param $end i32) (result i32)
  (local $i i32)
  (local $e i32)
  (local $n i32)
  (local $role i32)
  (local $k i32)
  (local.set $i (call $head (local.get $start) (local.get $end)))
  (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
  ;; $i is at the message object: the role is at HEAD_ROLE
  (local.set $i (i32.sub (local.get $i) (i32.const 11)))
  (local.set $n (i32.sub (i32.load (i32.const {{HEAD_ROLE_END}})) (i32.load (i32.const {{HEAD_ROLE}}))))
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
  (local.set $k (i32.load (i32.const {{KEYS}})))
  (if (i32.ne (i32.and (local.get $k) (i32.const {{ROLE_MASK}})) (i32.const 1)) (then (return (i32.const -1))))
  ;; (the brace within the line: a torn line's next byte in memory may be one)
  (if (i32.or (i32.ge_u (local.get $e) (local.get $end)) (i32.ne (i32.load8_u (local.get $e)) (i32.const 0x7d)))
    (then (return (i32.const -1))))
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
  (i32.or (local.get $role) (i32.and (i32.shr_u (local.get $k) (i32.const {{HAS_CONTENT_BIT - MESSAGE_CONTENT_BIT}})) (i32.const {{1 << MESSAGE_CONTENT_BIT}}))))
