;; The inner loop of the all-pairs privacy check's ln scan (log-ratio-scan.ts), in WebAssembly with 128-bit
;; SIMD (two f64 lanes, two accumulators each way): for one row a of ln entries against `count` consecutive
;; rows b, the largest and the smallest a[y] - b[y] over the m outputs. V8 does not vectorise the same
;; JavaScript loop (measured ~7 times slower). The inputs hold no NaN (a zero's ln is -1e300), so pmax/pmin
;; (a < b ? b : a) are the max and min.
;;
;; All pointers are byte offsets into the imported memory. Regenerate the embedded module after a change:
;; `npm run build:kernels` (scripts/build-kernels.mjs; a unit test fails while the two differ).
(module
  (memory (import "env" "memory") 1)
  ;; for k < count: row b = b0 + k*m*8; outMax[k] = max_y a[y]-b[y], outMin[k] = min_y a[y]-b[y]
  (func (export "rowPairs") (param $a i32) (param $b i32) (param $count i32) (param $m i32) (param $omax i32) (param $omin i32)
    (local $k i32) (local $y i32) (local $p i32) (local $q i32) (local $end i32) (local $end4 i32)
    (local $mx0 v128) (local $mx1 v128) (local $mn0 v128) (local $mn1 v128) (local $d v128) (local $s f64) (local $t f64) (local $v f64)
    (block $doneK (loop $lk
      (br_if $doneK (i32.ge_u (local.get $k) (local.get $count)))
      (local.set $p (local.get $a))
      (local.set $q (local.get $b))
      (local.set $end (i32.add (local.get $a) (i32.shl (local.get $m) (i32.const 3))))
      (local.set $end4 (i32.add (local.get $a) (i32.shl (i32.and (local.get $m) (i32.const -4)) (i32.const 3))))
      (local.set $mx0 (f64x2.splat (f64.const -inf)))
      (local.set $mx1 (f64x2.splat (f64.const -inf)))
      (local.set $mn0 (f64x2.splat (f64.const inf)))
      (local.set $mn1 (f64x2.splat (f64.const inf)))
      (block $d4 (loop $l4
        (br_if $d4 (i32.ge_u (local.get $p) (local.get $end4)))
        (local.set $d (f64x2.sub (v128.load (local.get $p)) (v128.load (local.get $q))))
        (local.set $mx0 (f64x2.pmax (local.get $mx0) (local.get $d)))
        (local.set $mn0 (f64x2.pmin (local.get $mn0) (local.get $d)))
        (local.set $d (f64x2.sub (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q))))
        (local.set $mx1 (f64x2.pmax (local.get $mx1) (local.get $d)))
        (local.set $mn1 (f64x2.pmin (local.get $mn1) (local.get $d)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (local.set $q (i32.add (local.get $q) (i32.const 32)))
        (br $l4)))
      (local.set $mx0 (f64x2.pmax (local.get $mx0) (local.get $mx1)))
      (local.set $mn0 (f64x2.pmin (local.get $mn0) (local.get $mn1)))
      (local.set $s (f64.max (f64x2.extract_lane 0 (local.get $mx0)) (f64x2.extract_lane 1 (local.get $mx0))))
      (local.set $t (f64.min (f64x2.extract_lane 0 (local.get $mn0)) (f64x2.extract_lane 1 (local.get $mn0))))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (f64.sub (f64.load (local.get $p)) (f64.load (local.get $q))))
        (local.set $s (f64.max (local.get $s) (local.get $v)))
        (local.set $t (f64.min (local.get $t) (local.get $v)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (local.set $q (i32.add (local.get $q) (i32.const 8)))
        (br $l1)))
      (f64.store (i32.add (local.get $omax) (i32.shl (local.get $k) (i32.const 3))) (local.get $s))
      (f64.store (i32.add (local.get $omin) (i32.shl (local.get $k) (i32.const 3))) (local.get $t))
      (local.set $b (local.get $q))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $lk))))
)
