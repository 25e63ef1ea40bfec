;; Vector kernels of the dense master simplex (dense-simplex.ts), in WebAssembly
;; with 128-bit SIMD (two f64 lanes, two accumulators): the inner products and
;; row updates that take nearly all of its time. V8 does not vectorise the
;; same JavaScript loops and checks bounds on every typed-array access.
;;
;; All pointers are byte offsets into the imported memory; vectors are n f64.
;; The memory is shared: a second thread runs updateRows on other rows of the
;; same inverse, and dots on other columns (master-rows.ts).
;; Regenerate the embedded module after a change: `npm run build:kernels`
;; (scripts/build-kernels.mjs; a unit test fails while the two differ).
(module
  (memory (import "env" "memory") 1 65536 shared)

  ;; sum_k a[k] * b[k]
  (func $dot (export "dot") (param $a i32) (param $b i32) (param $n i32) (result f64)
    (local $end i32) (local $end4 i32) (local $acc0 v128) (local $acc1 v128) (local $s f64)
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
    (local.set $end4 (i32.add (local.get $a) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 3))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $a) (local.get $end4)))
        (local.set $acc0 (f64x2.add (local.get $acc0) (f64x2.mul (v128.load (local.get $a)) (v128.load (local.get $b)))))
        (local.set $acc1 (f64x2.add (local.get $acc1) (f64x2.mul (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (br $l)))
    (local.set $acc0 (f64x2.add (local.get $acc0) (local.get $acc1)))
    (local.set $s (f64.add (f64x2.extract_lane 0 (local.get $acc0)) (f64x2.extract_lane 1 (local.get $acc0))))
    (block $done2
      (loop $l2
        (br_if $done2 (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $s (f64.add (local.get $s) (f64.mul (f64.load (local.get $a)) (f64.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (local.set $b (i32.add (local.get $b) (i32.const 8)))
        (br $l2)))
    (local.get $s))

  ;; dst[k] -= f * src[k]
  (func $axpy (param $dst i32) (param $src i32) (param $f f64) (param $n i32)
    (local $end i32) (local $end4 i32) (local $fv v128)
    (local.set $fv (f64x2.splat (local.get $f)))
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $n) (i32.const 3))))
    (local.set $end4 (i32.add (local.get $dst) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 3))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end4)))
        (v128.store (local.get $dst) (f64x2.sub (v128.load (local.get $dst)) (f64x2.mul (local.get $fv) (v128.load (local.get $src)))))
        (v128.store offset=16 (local.get $dst)
          (f64x2.sub (v128.load offset=16 (local.get $dst)) (f64x2.mul (local.get $fv) (v128.load offset=16 (local.get $src)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (local.set $src (i32.add (local.get $src) (i32.const 32)))
        (br $l)))
    (block $done2
      (loop $l2
        (br_if $done2 (i32.ge_u (local.get $dst) (local.get $end)))
        (f64.store (local.get $dst) (f64.sub (f64.load (local.get $dst)) (f64.mul (local.get $f) (f64.load (local.get $src)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
        (local.set $src (i32.add (local.get $src) (i32.const 8)))
        (br $l2))))

  ;; dst[k] -= f * src[k], then sum_k dst[k] * a[k] (the new values)
  (func $axpyDot (param $dst i32) (param $src i32) (param $f f64) (param $a i32) (param $n i32) (result f64)
    (local $end i32) (local $end4 i32) (local $fv v128) (local $v v128) (local $acc0 v128) (local $acc1 v128) (local $s f64) (local $x f64)
    (local.set $fv (f64x2.splat (local.get $f)))
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $n) (i32.const 3))))
    (local.set $end4 (i32.add (local.get $dst) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 3))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end4)))
        (local.set $v (f64x2.sub (v128.load (local.get $dst)) (f64x2.mul (local.get $fv) (v128.load (local.get $src)))))
        (v128.store (local.get $dst) (local.get $v))
        (local.set $acc0 (f64x2.add (local.get $acc0) (f64x2.mul (local.get $v) (v128.load (local.get $a)))))
        (local.set $v (f64x2.sub (v128.load offset=16 (local.get $dst)) (f64x2.mul (local.get $fv) (v128.load offset=16 (local.get $src)))))
        (v128.store offset=16 (local.get $dst) (local.get $v))
        (local.set $acc1 (f64x2.add (local.get $acc1) (f64x2.mul (local.get $v) (v128.load offset=16 (local.get $a)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
        (local.set $src (i32.add (local.get $src) (i32.const 32)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (br $l)))
    (local.set $acc0 (f64x2.add (local.get $acc0) (local.get $acc1)))
    (local.set $s (f64.add (f64x2.extract_lane 0 (local.get $acc0)) (f64x2.extract_lane 1 (local.get $acc0))))
    (block $done2
      (loop $l2
        (br_if $done2 (i32.ge_u (local.get $dst) (local.get $end)))
        (local.set $x (f64.sub (f64.load (local.get $dst)) (f64.mul (local.get $f) (f64.load (local.get $src)))))
        (f64.store (local.get $dst) (local.get $x))
        (local.set $s (f64.add (local.get $s) (f64.mul (local.get $x) (f64.load (local.get $a)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 8)))
        (local.set $src (i32.add (local.get $src) (i32.const 8)))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (br $l2)))
    (local.get $s))

  ;; out[k] = y . a_k for k0 <= k < k1, a_k at the byte offset list[k] (i32):
  ;; the reduced costs' inner products of a block of columns (two threads
  ;; take disjoint ranges of k)
  (func (export "dots") (param $y i32) (param $list i32) (param $out i32) (param $n i32) (param $k0 i32) (param $k1 i32)
    (local $k i32)
    (local.set $k (local.get $k0))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $k) (local.get $k1)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3)))
          (call $dot (local.get $y) (i32.load (i32.add (local.get $list) (i32.shl (local.get $k) (i32.const 2)))) (local.get $n)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $l))))

  ;; alpha[i] = row_i(binv) . a for every row i of the n x n row-major binv
  (func (export "ftran") (param $binv i32) (param $a i32) (param $alpha i32) (param $n i32)
    (local $i i32) (local $row i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $n) (i32.const 3)))
    (local.set $row (local.get $binv))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (f64.store (i32.add (local.get $alpha) (i32.shl (local.get $i) (i32.const 3)))
          (call $dot (local.get $row) (local.get $a) (local.get $n)))
        (local.set $row (i32.add (local.get $row) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))))

  ;; The pivot's update of the rows i0 <= i < i1 other than p: row_i -= alpha[i]
  ;; * row_p (row p already divided by alpha[p]); with hasA, the same pass
  ;; computes the next FTRAN into alpha (alpha[i] = new row_i . a, row p
  ;; included). Row p is only read, and each row's alpha entry is its own: two
  ;; threads may update disjoint row ranges at once.
  (func (export "updateRows") (param $binv i32) (param $alpha i32) (param $n i32) (param $p i32) (param $a i32) (param $hasA i32) (param $i0 i32) (param $i1 i32)
    (local $i i32) (local $row i32) (local $rowP i32) (local $stride i32) (local $ai i32) (local $f f64)
    (local.set $stride (i32.shl (local.get $n) (i32.const 3)))
    (local.set $rowP (i32.add (local.get $binv) (i32.mul (local.get $p) (local.get $stride))))
    (local.set $i (local.get $i0))
    (local.set $row (i32.add (local.get $binv) (i32.mul (local.get $i0) (local.get $stride))))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $i1)))
        (local.set $ai (i32.add (local.get $alpha) (i32.shl (local.get $i) (i32.const 3))))
        (local.set $f (f64.load (local.get $ai)))
        (if (i32.eq (local.get $i) (local.get $p))
          (then
            (if (local.get $hasA)
              (then (f64.store (local.get $ai) (call $dot (local.get $row) (local.get $a) (local.get $n))))))
          (else
            (if (local.get $hasA)
              (then (f64.store (local.get $ai) (call $axpyDot (local.get $row) (local.get $rowP) (local.get $f) (local.get $a) (local.get $n))))
              (else
                (if (f64.ne (local.get $f) (f64.const 0))
                  (then (call $axpy (local.get $row) (local.get $rowP) (local.get $f) (local.get $n))))))))
        (local.set $row (i32.add (local.get $row) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))))
