(** * symssm: head counts by reflection on primitive integers

    The head count [\rank (lags A B C D n)] of a rational system given by integer matrices and
    denominators (SymssmLib's [qmx]), bounded from both sides by checks that [vm_compute] decides:

    - lower bound ([rank_lower_mod]): an integer matrix [X] with [X M = I] modulo a prime [P]
      ([1 < P < 2^31]), [M] the [k x k] minor of the witness lags at the witness entries, computed
      modulo [P] with Coq's primitive 63-bit integers.  Then [det X * det M = 1] in ['Z_P], so the
      integer [det M] is not 0 and [M] is invertible over [rat]: [k <= \rank].  The computed
      residues are linked to mathcomp's matrices by [Uint63.add_spec], [mul_spec], [mod_spec] and
      [of_Z_spec]: every operand is reduced below [P < 2^31], so no product wraps around [2^63];
    - upper bounds: [p m] (columns), [N + 1] or [N] when [D = 0] (Cayley-Hamilton,
      [rank_upper_generic]), or the dimension of an [A]-invariant subspace holding [B]'s image
      ([rank_upper_reduced]: [A V = V T], [B = V W] checked by exact integer products whose size
      does not depend on the lag).

    Proved once, nothing admitted; [Print Assumptions] of a theorem built on it lists only the
    specifications of the primitive integers (Uint63/PrimInt63).  symssm's docs/formal.md. *)
Set Warnings "-notation-overridden,-ambiguous-paths,-notation-incompatible-prefix".
From mathcomp Require Import all_ssreflect all_algebra.
From Coq Require Import ZArith Lia Uint63.
Import mathcomp.ssreflect.seq.
From CoqEAL Require Import binrat binnat.
From Symssm Require Import SymssmLib.

Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

Notation i63 := Uint63.int.

Section Modp.
Variable P : i63.
Definition pok : bool := (1 <? P)%uint63 && (P <? 2147483648)%uint63.
Definition pn : nat := Z.to_nat (to_Z P).
Local Notation R := 'Z_pn.
Definition zp (z : Z) : R := (Z2int z)%:~R.
Definition ph (x : i63) : R := zp (to_Z x).

Definition mr (x : i63) : i63 := (x mod P)%uint63.
Definition addm (x y : i63) : i63 := ((mr x + mr y) mod P)%uint63.
Definition mulm (x y : i63) : i63 := ((mr x * mr y) mod P)%uint63.

Hypothesis Pok : pok.

Lemma P_bounds : (1 < to_Z P < 2147483648)%Z.
Proof.
case/andP: Pok => /ltb_spec h1 /ltb_spec h2.
have E1 : to_Z 1%uint63 = 1%Z by reflexivity.
have E2 : to_Z 2147483648%uint63 = 2147483648%Z by reflexivity.
lia.
Qed.

Lemma wBE : wB = 9223372036854775808%Z.
Proof. by reflexivity. Qed.

Lemma zpD x y : zp (x + y) = zp x + zp y.
Proof. by rewrite /zp Z2int_add intrD. Qed.
Lemma zpM x y : zp (x * y) = zp x * zp y.
Proof. by rewrite /zp Z2int_mul intrM. Qed.
Lemma zp0 : zp 0 = 0.
Proof. by []. Qed.
Lemma zp1 : zp 1 = 1.
Proof. by []. Qed.

Lemma Z2int_pn : Z2int (to_Z P) = pn%:Z.
Proof.
have [h1 _] := P_bounds; rewrite /pn.
by case: (to_Z P) h1 => [|q|q] //= _; rewrite to_natE.
Qed.

Lemma zpP : zp (to_Z P) = 0.
Proof.
have [h1 _] := P_bounds.
rewrite /zp Z2int_pn -pmulrn char_Zp //.
apply/ltP; rewrite /pn; lia.
Qed.

Lemma zp_mod z : zp (z mod to_Z P) = zp z.
Proof.
have [h1 _] := P_bounds.
have E := Z.div_mod z (to_Z P) ltac:(lia).
rewrite [in RHS]E zpD zpM zpP mul0r add0r.
by [].
Qed.

Lemma mr_spec x : ph (mr x) = ph x /\ (0 <= to_Z (mr x) < to_Z P)%Z.
Proof.
have [h1 _] := P_bounds.
rewrite /ph /mr mod_spec; split; first exact: zp_mod.
apply: Z.mod_pos_bound; lia.
Qed.

Lemma addm_spec x y : ph (addm x y) = ph x + ph y.
Proof.
have [h1 h2] := P_bounds.
have [ex bx] := mr_spec x; have [ey b_y] := mr_spec y.
rewrite /ph /addm mod_spec zp_mod add_spec Z.mod_small; last by rewrite wBE; lia.
by rewrite zpD -/(ph _) -/(ph _) ex ey.
Qed.

Lemma mulm_spec x y : ph (mulm x y) = ph x * ph y.
Proof.
have [h1 h2] := P_bounds.
have [ex bx] := mr_spec x; have [ey b_y] := mr_spec y.
rewrite /ph /mulm mod_spec zp_mod mul_spec Z.mod_small; last by rewrite wBE; nia.
by rewrite zpM -/(ph _) -/(ph _) ex ey.
Qed.

Lemma ph0 : ph 0%uint63 = 0.
Proof. by []. Qed.
Lemma ph1 : ph 1%uint63 = 1.
Proof. by []. Qed.

End Modp.

Lemma nth_map_def (T U : Type) (f : T -> U) x0 s i : nth (f x0) (map f s) i = f (nth x0 s i).
Proof. by elim: s i => [|x s IH] [|i] //=. Qed.

Definition pad (T : Type) (x0 : T) n (s : seq T) := take n (s ++ nseq n x0).

Lemma size_pad (T : Type) (x0 : T) n s : size (pad x0 n s) = n.
Proof.
rewrite /pad size_take size_cat size_nseq; case: ifP => // /negbT; rewrite -leqNgt => h.
by apply/eqP; rewrite eqn_leq h leq_addl.
Qed.

Lemma nth_pad (T : Type) (x0 : T) n s i : (i < n)%nat -> nth x0 (pad x0 n s) i = nth x0 s i.
Proof.
move=> lt; rewrite /pad nth_take // nth_cat; case: ltnP => // h.
by rewrite nth_nseq nth_default //; case: ifP.
Qed.

(** * Matrices modulo P as lists of primitive integers *)
Section Lists.
Variable P : i63.
Hypothesis Pok : pok P.
Local Notation R := 'Z_(pn P).
Local Notation ph := (ph P).
Local Notation addm := (addm P).
Local Notation mulm := (mulm P).

Definition useq := seq (seq i63).
Definition uget (s : useq) i j : i63 := nth 0%uint63 (nth [::] s i) j.
Definition umx r c (s : useq) : 'M[R]_(r, c) := \matrix_(i, j) ph (uget s i j).

Fixpoint udot k (u v : seq i63) : i63 :=
  if k is k'.+1 then addm (mulm (head 0%uint63 u) (head 0%uint63 v)) (udot k' (behead u) (behead v))
  else 0%uint63.

Lemma udot_spec k u v : ph (udot k u v) = \sum_(l < k) ph (nth 0%uint63 u l) * ph (nth 0%uint63 v l).
Proof.
elim: k u v => [|k IH] u v /=; first by rewrite big_ord0.
rewrite addm_spec // mulm_spec // IH big_ord_recl /=; congr (_ + _).
apply: eq_bigr => l _; rewrite /bump /= add1n.
by case: u => [|x u]; case: v => [|y v]; rewrite /= ?nth_nil.
Qed.

(** [umulT m k n s tT] is [s *m t] where [tT] lists the columns of [t]. *)
Definition umulT m k n (s tT : useq) : useq :=
  [seq [seq udot k r c | c <- pad [::] n tT] | r <- pad [::] m s].

Lemma umx_mulT m k n s tT : umx m n (umulT m k n s tT) = umx m k s *m (umx n k tT)^T.
Proof.
apply/matrixP => i j; rewrite !mxE /uget /umulT (nth_map [::]) ?size_pad //.
rewrite (nth_map [::]) ?size_pad // !nth_pad // udot_spec.
by apply: eq_bigr => l _; rewrite !mxE.
Qed.

Definition utr k n (t : useq) : useq := [seq [seq nth 0%uint63 r j | r <- pad [::] k t] | j <- iota 0 n].

Lemma umx_tr k n t : umx n k (utr k n t) = (umx k n t)^T.
Proof.
apply/matrixP => j l; rewrite !mxE /uget /utr (nth_map 0%nat) ?size_iota // nth_iota // add0n.
rewrite (nth_map [::]); last by rewrite size_pad.
by rewrite nth_pad.
Qed.

Definition ueqb (s t : useq) : bool := all2 (all2 (fun x y => (x =? y)%uint63)) s t.

Lemma ueqbP s t : ueqb s t -> s = t.
Proof.
elim: s t => [|x s IH] [|y t] //= /andP [h /IH ->]; congr (_ :: _).
by elim: x y h => [|u x IHx] [|v y] //= /andP [/eqb_spec -> /IHx ->].
Qed.

Definition uid n : useq := [seq [seq (if i == j then 1 else 0)%uint63 | j <- iota 0 n] | i <- iota 0 n].

Lemma umx_id n : umx n n (uid n) = 1%:M.
Proof.
apply/matrixP => i j; rewrite !mxE /uget /uid (nth_map 0%nat) ?size_iota // nth_iota // add0n.
rewrite (nth_map 0%nat) ?size_iota // nth_iota // add0n.
have -> : (nat_of_ord i == nat_of_ord j) = (i == j) by [].
by case: (i == j).
Qed.

(** Exact integer lists reduced modulo P. *)
Definition ured (s : zseq) : useq := [seq [seq of_Z (z mod to_Z P) | z <- r] | r <- s].

Lemma ph_red z : ph (of_Z (z mod to_Z P)) = zp P z.
Proof.
have [h1 h2] := P_bounds Pok.
have hb := Z.mod_pos_bound z (to_Z P) ltac:(lia).
rewrite /ph of_Z_spec (Z.mod_small (z mod to_Z P)); first exact: zp_mod.
have := wBE; lia.
Qed.

Local Notation zr := (fun x : ssrint.int => x%:~R : R).

Lemma umx_red r c s : umx r c (ured s) = map_mx zr (zmx r c s).
Proof.
apply/matrixP => i j; rewrite !mxE /uget /ured /zget.
have -> : nth [::] [seq [seq of_Z (z mod to_Z P) | z <- r0] | r0 <- s] i
          = [seq of_Z (z mod to_Z P) | z <- nth [::] s i]
    by exact: (nth_map_def (fun r0 => [seq of_Z (z mod to_Z P) | z <- r0]) [::]).
elim: (nth [::] s i) (nat_of_ord j) => [|z row IH] [|j'] //=.
by rewrite ph_red.
Qed.

(** Powers: [nth d (upows Q AT n)] is [Q *m (AT^T)^d]. *)
Fixpoint upows m k (Q AT : useq) (n : nat) : seq useq :=
  if n is n'.+1 then Q :: upows m k (umulT m k k Q AT) AT n' else [::].

Lemma upows_spec m k' Q AT n d : (d < n)%nat ->
  umx m k'.+1 (nth [::] (upows m k'.+1 Q AT n) d) = umx m k'.+1 Q *m ((umx k'.+1 k'.+1 AT)^T) ^+ d.
Proof.
elim: n Q d => [|n IH] Q [|d] //= lt; first by rewrite expr0 mulmx1.
by rewrite IH // umx_mulT exprS -mulmxE mulmxA.
Qed.

End Lists.

Lemma trmx_exp (R : comRingType) n' (M : 'M[R]_n'.+1) d : (M ^T) ^+ d = (M ^+ d)^T.
Proof.
elim: d => [|d IH]; first by rewrite !expr0 trmx1.
by rewrite exprS IH exprSr -!mulmxE trmx_mul.
Qed.

(** * Upper bounds over any field *)
Section Upper.
Variables (F : fieldType) (N' p m : nat).
Local Notation N := N'.+1.
Variables (A : 'M[F]_N) (B : 'M[F]_(N, m)) (C : 'M[F]_(p, N)) (D : 'M[F]_(p, m)).

(** Without [D], Cayley-Hamilton puts every lag in the span of [L_0 .. L_(N-1)]. *)
Lemma lag_tail0 d : D = 0 -> (mxvec (lag A B C D d) <= lags A B C D N)%MS.
Proof.
move=> D0; have lagE i : lag A B C D i = C *m A ^+ i *m B.
  by case: i => [|i] /=; rewrite ?D0 ?addr0 ?expr0 ?mulmx1.
have := horner_mx_mem A 'X^d; rewrite rmorphX /= horner_mx_X => /submxP [x Hx].
have HA : A ^+ d = \sum_(i < degree_mxminpoly A) x 0 i *: A ^+ i.
  rewrite -[A ^+ d]mxvecK Hx mulmx_sum_row linear_sum /=.
  by apply: eq_bigr => i _; rewrite linearZ /= rowK mxvecK.
rewrite lagE HA mulmx_sumr mulmx_suml linear_sum /= summx_sub // => i _.
rewrite -scalemxAr -scalemxAl linearZ /= scalemx_sub // -lagE.
apply: lag_sub_lags; exact: leq_trans (ltn_ord i) (degree_le A).
Qed.

Lemma rank_le_N n : D = 0 -> (\rank (lags A B C D n) <= N)%nat.
Proof.
move=> D0; apply: leq_trans (rank_leq_row (lags A B C D N)); apply: mxrankS.
by apply/row_subP => i; rewrite row_lags; apply: lag_tail0.
Qed.

Lemma rank_le_N1 n : (\rank (lags A B C D n) <= N.+1)%nat.
Proof. exact: leq_trans (mxrankS (lags_tail A B C D n)) (rank_leq_row _). Qed.

(** [n] independent lags [L_0 .. L_(n-1)]: every prefix is independent too. *)
Lemma rank_prefix n i : \rank (lags A B C D n) = n -> (i <= n)%nat -> \rank (lags A B C D i) = i.
Proof.
move=> full le; apply/eqP; rewrite eqn_leq rank_leq_row /=.
pose R : 'M[F]_(n - i, p * m) := \matrix_(j < n - i) mxvec (lag A B C D (i + j)).
have sub : (lags A B C D n <= lags A B C D i + R)%MS.
  apply/row_subP => d; rewrite row_lags.
  case: (ltnP d i) => [lt | ge].
    exact: submx_trans (lag_sub_lags _ _ _ _ lt) (addsmxSl _ _).
  apply: submx_trans (addsmxSr (lags A B C D i) R).
  have ltj : (d - i < n - i)%nat by rewrite ltn_sub2r // (leq_ltn_trans ge (ltn_ord d)).
  have -> : nat_of_ord d = (i + (d - i))%nat by rewrite subnKC.
  by rewrite -(rowK (fun j : 'I_(n - i) => mxvec (lag A B C D (i + j))) (Ordinal ltj)) row_sub.
have H := leq_trans (mxrankS sub) (mxrank_adds_leqif _ _).1.
rewrite full in H; have HR := rank_leq_row R.
rewrite -{1}(subKn le) leq_subLR; apply: leq_trans H _.
by rewrite addnC leq_add2r.
Qed.
(** An [A]-invariant subspace [V] holding [B]'s image: the lags are those of the system [(T, W, C V, D)]. *)
Lemma lag_reduce r' (V : 'M[F]_(N, r'.+1)) (T : 'M[F]_r'.+1) (W : 'M[F]_(r'.+1, m)) d :
  A *m V = V *m T -> B = V *m W -> lag A B C D d = lag T W (C *m V) D d.
Proof.
move=> AV BW; case: d => [|d] /=; first by rewrite BW mulmxA.
have AdV i : A ^+ i *m V = V *m T ^+ i.
  elim: i => [|i IH]; first by rewrite !expr0 mul1mx mulmx1.
  rewrite exprS -mulmxE -mulmxA IH mulmxA AV -mulmxA; congr (_ *m _).
  by rewrite exprS mulmxE.
by rewrite BW mulmxA -(mulmxA C) AdV !mulmxA.
Qed.

Lemma lags_reduce r' (V : 'M[F]_(N, r'.+1)) (T : 'M[F]_r'.+1) (W : 'M[F]_(r'.+1, m)) n :
  A *m V = V *m T -> B = V *m W -> lags A B C D n = lags T W (C *m V) D n.
Proof. by move=> AV BW; apply/matrixP => i j; rewrite !mxE (lag_reduce i AV BW). Qed.

(** Dually, a left [A]-invariant [U] whose rows span [C]'s: the lags are those of [(T, U B, H, D)]. *)
Lemma lag_observe r' (U : 'M[F]_(r'.+1, N)) (T : 'M[F]_r'.+1) (H : 'M[F]_(p, r'.+1)) d :
  U *m A = T *m U -> C = H *m U -> lag A B C D d = lag T (U *m B) H D d.
Proof.
move=> UA CH; case: d => [|d] /=; first by rewrite CH mulmxA.
have UAd i : U *m A ^+ i = T ^+ i *m U.
  elim: i => [|i IH]; first by rewrite !expr0 mulmx1 mul1mx.
  rewrite exprSr -mulmxE mulmxA IH -mulmxA UA mulmxA; congr (_ *m _).
  by rewrite exprSr mulmxE.
by rewrite CH -(mulmxA H) UAd !mulmxA.
Qed.

Lemma lags_observe r' (U : 'M[F]_(r'.+1, N)) (T : 'M[F]_r'.+1) (H : 'M[F]_(p, r'.+1)) n :
  U *m A = T *m U -> C = H *m U -> lags A B C D n = lags T (U *m B) H D n.
Proof. by move=> UA CH; apply/matrixP => i j; rewrite !mxE (lag_observe i UA CH). Qed.

End Upper.

Lemma nth_le_max (DS : seq nat) i : (nth 0%nat DS i <= foldr maxn 0%nat DS)%nat.
Proof.
elim: DS i => [|x DS IH] [|i] /=; rewrite ?nth_nil ?leq_maxl //.
exact: leq_trans (IH i) (leq_maxr _ _).
Qed.

Definition zzero (s : zseq) (r cc : nat) : bool :=
  all (fun i => all (fun j => Z.eqb (zget s i j) 0) (iota 0 cc)) (iota 0 r).

Lemma zzeroP s r cc : zzero s r cc -> zmx r cc s = 0.
Proof.
move=> /allP H; apply/matrixP => i j; rewrite !mxE.
have Hi : (nat_of_ord i \in iota 0 r) by rewrite mem_iota add0n ltn_ord.
have Hj : (nat_of_ord j \in iota 0 cc) by rewrite mem_iota add0n ltn_ord.
by move: (H i Hi) => /allP /(_ j Hj) /Z.eqb_eq ->.
Qed.

(** * A rational system: the head count from reflective checks *)
Section Reflect.
Variables (N' p' m' : nat).
Local Notation N := N'.+1.
Local Notation p := p'.+1.
Local Notation m := m'.+1.
Variables (a b c e : Z) (Az Bz Cz Dz : zseq).
Local Notation A := (qmx N N a Az).
Local Notation B := (qmx N m b Bz).
Local Notation C := (qmx p N c Cz).
Local Notation D := (qmx p m e Dz).
Local Notation zl := (zlag N' p' m' b c e Az Bz Cz Dz).
Local Notation gl := (glag N' p' m' b c e Az Bz Cz Dz).
Local Notation intr := (fun x : ssrint.int => x%:~R : rat).

Section Modular.
Variable P : i63.
Local Notation R := 'Z_(pn P).
Local Notation zr := (fun x : ssrint.int => x%:~R : R).
Local Notation umx := (umx P).
Local Notation phA := (map_mx zr (zmx N N Az)).
Local Notation phB := (map_mx zr (zmx N m Bz)).
Local Notation phC := (map_mx zr (zmx p N Cz)).
Local Notation phD := (map_mx zr (zmx p m Dz)).

(** Entry [(rr, cc)] of the lag [d] modulo [P], from [QL *m QR^T = C A^d B] (scaled to integers). *)
Definition uentry (QL QR : useq) (d rr cc : nat) : i63 :=
  let x := udot P N (nth [::] QL rr) (nth [::] QR cc) in
  if d is 0 then addm P (mulm P (of_Z (e mod to_Z P)) x)
                        (mulm P (of_Z ((c * b) mod to_Z P)) (uget (ured P Dz) rr cc))
  else x.

(** The [k x k] minor of the witness lags [DS] at the entries [(RS_t, CS_t)], modulo [P]:
    [route] computes [C A^d] (true) or [(A^d B)^T] (false) by repeated products. *)
Definition uminor (route : bool) (DS RS CS : seq nat) : useq :=
  let A' := ured P Az in let C' := ured P Cz in let BT := utr N m (ured P Bz) in
  let n := (foldr maxn 0%nat DS).+1 in
  if route then
    let CA := upows P p N C' (utr N N A') n in
    [seq (let QL := nth [::] CA d in [seq uentry QL BT d rc.1 rc.2 | rc <- zip RS CS]) | d <- DS]
  else
    let ABT := upows P m N BT A' n in
    [seq (let QR := nth [::] ABT d in [seq uentry C' QR d rc.1 rc.2 | rc <- zip RS CS]) | d <- DS].

(** The exact integer minor. *)
Definition imin (DS RS CS : seq nat) (k : nat) : 'M[ssrint.int]_k :=
  \matrix_(s, t) zmx p m (zl (nth 0%nat DS s)) (inord (nth 0%nat RS t)) (inord (nth 0%nat CS t)).

Hypothesis Pok : pok P.

Lemma zlag_mod d : map_mx zr (zmx p m (zl d)) =
  if d is 0 then zr (Z2int e) *: (phC *m phB) + zr (Z2int (c * b)) *: phD else phC *m phA ^+ d *m phB.
Proof.
rewrite /zlag; case: d => [|d].
  by rewrite zmx_add !zmx_scale zmx_mul map_mxD !map_mxZ map_mxM.
by rewrite !zmx_mul zmx_pow !map_mxM (rmorphX (map_mx_rmorphism _ _)) exprS mulmxE.
Qed.

Lemma uentry_spec QL QR d rr cc : (rr < p)%nat -> (cc < m)%nat ->
  umx p N QL *m (umx m N QR)^T = phC *m phA ^+ d *m phB ->
  ph P (uentry QL QR d rr cc) = map_mx zr (zmx p m (zl d)) (inord rr) (inord cc).
Proof.
move=> lr lc H.
have Ex : ph P (udot P N (nth [::] QL rr) (nth [::] QR cc)) = (phC *m phA ^+ d *m phB) (inord rr) (inord cc).
  rewrite -H udot_spec // !mxE; apply: eq_bigr => l _; rewrite !mxE /uget !inordK //.
rewrite zlag_mod; case: d H Ex => [|d] H Ex /=; last exact: Ex.
have ED : ph P (uget (ured P Dz) rr cc) = phD (inord rr) (inord cc).
  by rewrite -umx_red // mxE !inordK.
rewrite expr0 mulmx1 in Ex.
rewrite addm_spec // !mulm_spec // Ex ED !ph_red //.
set M1 := phC *m phB; set M2 := phD.
by rewrite !mxE.
Qed.

Lemma uminor_spec route DS RS CS k : size DS = k -> size RS = k -> size CS = k ->
  all (fun r => r < p)%nat RS -> all (fun c => c < m)%nat CS ->
  umx k k (uminor route DS RS CS) = map_mx zr (imin DS RS CS k).
Proof.
move=> sD sR sC aR aC; apply/matrixP => s t; rewrite !mxE /uget /uminor.
have ltR : (nth 0%nat RS t < p)%nat by apply: (allP aR); rewrite mem_nth // sR.
have ltC : (nth 0%nat CS t < m)%nat by apply: (allP aC); rewrite mem_nth // sC.
have nz : nth (0%nat, 0%nat) (zip RS CS) t = (nth 0%nat RS t, nth 0%nat CS t) by rewrite nth_zip // sR sC.
have ld := nth_le_max DS s.
set d := nth 0%nat DS s; set n := (foldr maxn 0%nat DS).+1.
have ldn : (d < n)%nat by [].
have eB : umx N m (ured P Bz) = phB by rewrite umx_red.
case: route.
  rewrite (nth_map 0%nat) ?sD // (nth_map (0%nat, 0%nat)) ?size_zip ?sR ?sC ?minnn // nz.
  rewrite (uentry_spec (rr := nth 0%nat RS t) (cc := nth 0%nat CS t) ltR ltC) ?mxE //.
  by rewrite upows_spec // !umx_tr !umx_red // !trmxK.
rewrite (nth_map 0%nat) ?sD // (nth_map (0%nat, 0%nat)) ?size_zip ?sR ?sC ?minnn // nz.
rewrite (uentry_spec (rr := nth 0%nat RS t) (cc := nth 0%nat CS t) ltR ltC) ?mxE //.
by rewrite upows_spec // !umx_tr !umx_red // trmx_exp -trmx_mul trmxK mulmxA.
Qed.

End Modular.

(** What the file checks for the lower bound: [X] inverts the minor modulo the prime [P]. *)
Definition lower_check (P : i63) (n k : nat) (route : bool) (DS RS CS : seq nat) (X : useq) : bool :=
  [&& pok P, dens_ok a b c e, size DS == k, size RS == k &
      [&& size CS == k, all (fun r => r < p)%nat RS, all (fun c => c < m)%nat CS, all (fun d => d < n)%nat DS
    & ueqb (umulT P k k k X (utr k k (uminor P route DS RS CS))) (uid k)]].

Theorem rank_lower_mod P n k route DS RS CS X :
  lower_check P n k route DS RS CS X -> (k <= \rank (lags A B C D n))%nat.
Proof.
case/and5P => Pok dok /eqP sD /eqP sR /and5P [/eqP sC aR aC aD /ueqbP E].
have -> : \rank (lags A B C D n) = \rank (stack gl n).
  by apply: rank_stack_scaled => d; apply: lag_scaled.
have := congr1 (umx P k k) E; rewrite umx_mulT // umx_tr trmxK umx_id.
rewrite (uminor_spec Pok route sD sR sC aR aC) => U.
have detne : \det (imin DS RS CS k) != 0.
  apply/eqP => d0; have := congr1 determinant U.
  rewrite det_mulmx det_map_mx d0 rmorph0 mulr0 det1 => /eqP.
  by rewrite eq_sym oner_eq0.
apply: (rank_lower (ds := fun s : 'I_k => nth 0%nat DS s)
                   (rs := fun t : 'I_k => inord (nth 0%nat RS t))
                   (cs := fun t : 'I_k => inord (nth 0%nat CS t))).
  by move=> s; apply: (allP aD); rewrite mem_nth // sD.
have -> : \matrix_(s, t) gl (nth 0%nat DS s) (inord (nth 0%nat RS t)) (inord (nth 0%nat CS t))
          = map_mx intr (imin DS RS CS k) by apply/matrixP => s t; rewrite !mxE.
by rewrite unitmxE det_map_mx unitfE intr_eq0.
Qed.

(** Upper bounds: by the number of columns [p m], by Cayley-Hamilton ([N + 1], or [N] when [D = 0]). *)
Definition upper_generic (k : nat) : bool :=
  [|| (p * m <= k)%nat, (N.+1 <= k)%nat | (N <= k)%nat && zzero Dz p m].

Theorem rank_upper_generic n k : upper_generic k -> (\rank (lags A B C D n) <= k)%nat.
Proof.
case/or3P => [h | h | /andP [h /zzeroP Dz0]].
- exact: leq_trans (rank_leq_col _) h.
- exact: leq_trans (rank_le_N1 _ _ _ _ n) h.
- apply: leq_trans (rank_le_N _ _ _ n _) h.
  by rewrite /qmx Dz0 map_mx0 scaler0.
Qed.

Theorem rank_upper_rows n k : (n <= k)%nat -> (\rank (lags A B C D n) <= k)%nat.
Proof. exact: leq_trans (rank_leq_row _). Qed.

(** Upper bound by an invariant subspace: [V = Vz] ([N x r]), [T = Tz / t], [W = Wz / w] with
    [A V = V T] and [B = V W], i.e. [t Az Vz = a Vz Tz] and [w Bz = b Vz Wz]; then the lags are
    those of an [r]-state system, and Cayley-Hamilton bounds their span by [r + 1] ([r] when [D = 0]). *)
Definition upper_reduced (k r' : nat) (t w : Z) (Vz Tz Wz : zseq) : bool :=
  [&& ~~ Z.eqb a 0, ~~ Z.eqb b 0, ~~ Z.eqb t 0, ~~ Z.eqb w 0 &
      [&& zeqb N r'.+1 (zscale N r'.+1 t (zmul N N r'.+1 Az Vz)) (zscale N r'.+1 a (zmul N r'.+1 r'.+1 Vz Tz)),
          zeqb N m (zscale N m w Bz) (zscale N m b (zmul N r'.+1 m Vz Wz))
        & (r'.+2 <= k)%nat || ((r'.+1 <= k)%nat && zzero Dz p m)]].


Theorem rank_upper_reduced n k r' t w Vz Tz Wz :
  upper_reduced k r' t w Vz Tz Wz -> (\rank (lags A B C D n) <= k)%nat.
Proof.
case/and5P => na nb nt nw /and3P [/zeqbP EA /zeqbP EB kk].
have ia := intr_neq0 na; have ib := intr_neq0 nb; have it := intr_neq0 nt; have iw := intr_neq0 nw.
pose V : 'M[rat]_(N, r'.+1) := map_mx intr (zmx N r'.+1 Vz).
pose T : 'M[rat]_r'.+1 := qmx r'.+1 r'.+1 t Tz.
pose W : 'M[rat]_(r'.+1, m) := qmx r'.+1 m w Wz.
have AV : A *m V = V *m T.
  move: EA; rewrite !zmx_scale !zmx_mul => /(congr1 (map_mx intr)).
  rewrite !map_mxZ !map_mxM /= /V /T /qmx -scalemxAl -scalemxAr => E.
  have -> : map_mx intr (zmx N N Az) *m map_mx intr (zmx N r'.+1 Vz)
            = ((Z2int t)%:~R)^-1 *: ((Z2int a)%:~R *: (map_mx intr (zmx N r'.+1 Vz) *m map_mx intr (zmx r'.+1 r'.+1 Tz))).
    by rewrite -E scalerA mulVf ?scale1r.
  rewrite !scalerA; congr (_ *: _).
  by rewrite mulrAC mulVf // mul1r.
have BW : B = V *m W.
  move: EB; rewrite !zmx_scale !zmx_mul => /(congr1 (map_mx intr)).
  rewrite !map_mxZ !map_mxM /= /V /W /qmx -scalemxAr => E.
  have -> : map_mx intr (zmx N m Bz)
            = ((Z2int w)%:~R)^-1 *: ((Z2int b)%:~R *: (map_mx intr (zmx N r'.+1 Vz) *m map_mx intr (zmx r'.+1 m Wz))).
    by rewrite -E scalerA mulVf ?scale1r.
  rewrite !scalerA; congr (_ *: _).
  by rewrite mulrAC mulVf // mul1r.
rewrite (lags_reduce C D n AV BW).
case/orP: kk => [h | /andP [h /zzeroP Dz0]].
  exact: leq_trans (rank_le_N1 _ _ _ _ n) h.
apply: leq_trans (rank_le_N _ _ _ n _) h.
by rewrite /qmx Dz0 map_mx0 scaler0.
Qed.

Lemma scaled_eq (F : fieldType) m1 n1 (X Y : 'M[F]_(m1, n1)) (u v : F) :
  u != 0 -> v != 0 -> v *: X = u *: Y -> u^-1 *: X = v^-1 *: Y.
Proof.
move=> nu nv E; have -> : X = v^-1 *: (u *: Y) by rewrite -E scalerA mulVf ?scale1r.
by rewrite !scalerA mulrAC mulVf // mul1r.
Qed.

Lemma reach_lags n k r' t w Vz Tz Wz : upper_reduced k r' t w Vz Tz Wz ->
  lags A B C D n = lags (qmx r'.+1 r'.+1 t Tz) (qmx r'.+1 m w Wz) (C *m map_mx intr (zmx N r'.+1 Vz)) D n.
Proof.
case/and5P => na nb nt nw /and3P [/zeqbP EA /zeqbP EB _].
apply: lags_reduce.
  move: EA; rewrite !zmx_scale !zmx_mul => /(congr1 (map_mx intr)); rewrite !map_mxZ !map_mxM /= => E.
  rewrite /qmx -scalemxAl -scalemxAr.
  exact: scaled_eq (intr_neq0 na) (intr_neq0 nt) E.
move: EB; rewrite !zmx_scale !zmx_mul => /(congr1 (map_mx intr)); rewrite !map_mxZ !map_mxM /= => E.
rewrite /qmx -scalemxAr.
exact: scaled_eq (intr_neq0 nb) (intr_neq0 nw) E.
Qed.

(** Both reductions: [V] as in [upper_reduced], then [U] ([r1 x r]) with [U T = T1 U] and
    [C V = H U] ([T1 = T1z / t1], [H = Hz / h]): the lags are those of an [r1]-state system. *)
Definition upper_observed (k r' r1' : nat) (t w t1 h : Z) (Vz Tz Wz Uz T1z Hz : zseq) : bool :=
  [&& upper_reduced r'.+2 r' t w Vz Tz Wz, ~~ Z.eqb t1 0, ~~ Z.eqb h 0, ~~ Z.eqb c 0 &
      [&& zeqb r1'.+1 r'.+1 (zscale r1'.+1 r'.+1 t1 (zmul r1'.+1 r'.+1 r'.+1 Uz Tz))
                            (zscale r1'.+1 r'.+1 t (zmul r1'.+1 r1'.+1 r'.+1 T1z Uz)),
          zeqb p r'.+1 (zscale p r'.+1 h (zmul p N r'.+1 Cz Vz)) (zscale p r'.+1 c (zmul p r1'.+1 r'.+1 Hz Uz))
        & (r1'.+2 <= k)%nat || ((r1'.+1 <= k)%nat && zzero Dz p m)]].

Theorem rank_upper_observed n k r' r1' t w t1 h Vz Tz Wz Uz T1z Hz :
  upper_observed k r' r1' t w t1 h Vz Tz Wz Uz T1z Hz -> (\rank (lags A B C D n) <= k)%nat.
Proof.
case/and5P => R nt1 nh nc /and3P [/zeqbP EU /zeqbP EH kk].
have nt : ~~ Z.eqb t 0 by case/and5P: R.
rewrite (reach_lags n R).
have UT : map_mx intr (zmx r1'.+1 r'.+1 Uz) *m qmx r'.+1 r'.+1 t Tz
          = qmx r1'.+1 r1'.+1 t1 T1z *m map_mx intr (zmx r1'.+1 r'.+1 Uz).
  move: EU; rewrite !zmx_scale !zmx_mul => /(congr1 (map_mx intr)); rewrite !map_mxZ !map_mxM /= => E.
  rewrite /qmx -scalemxAr -scalemxAl.
  exact: scaled_eq (intr_neq0 nt) (intr_neq0 nt1) E.
have CH : C *m map_mx intr (zmx N r'.+1 Vz) = qmx p r1'.+1 h Hz *m map_mx intr (zmx r1'.+1 r'.+1 Uz).
  move: EH; rewrite !zmx_scale !zmx_mul => /(congr1 (map_mx intr)); rewrite !map_mxZ !map_mxM /= => E.
  rewrite /qmx -!scalemxAl.
  exact: scaled_eq (intr_neq0 nc) (intr_neq0 nh) E.
rewrite (lags_observe _ _ n UT CH).
case/orP: kk => [k2 | /andP [k1 /zzeroP Dz0]].
  exact: leq_trans (rank_le_N1 _ _ _ _ n) k2.
apply: leq_trans (rank_le_N _ _ _ n _) k1.
by rewrite /qmx Dz0 map_mx0 scaler0.
Qed.

(** A zero reduced output: [V] as in [upper_reduced] with [C V = 0].  Then [L_d = 0] for [d >= 1]
    and [L_0 = D]: the head count is at most [1], and [0] when [D = 0] (for [B = 0] take [V] a zero
    column; for [C = 0], [V = I]). *)
Definition upper_null (k r' : nat) (t w : Z) (Vz Tz Wz : zseq) : bool :=
  [&& upper_reduced r'.+2 r' t w Vz Tz Wz, zzero (zmul p N r'.+1 Cz Vz) p r'.+1
    & (1 <= k)%nat || zzero Dz p m].

Theorem rank_upper_null n k r' t w Vz Tz Wz :
  upper_null k r' t w Vz Tz Wz -> (\rank (lags A B C D n) <= k)%nat.
Proof.
case/and3P => R /zzeroP CV0 kk.
rewrite (reach_lags n R).
have -> : C *m map_mx intr (zmx N r'.+1 Vz) = 0.
  by rewrite /qmx -scalemxAl -map_mxM -zmx_mul CV0 map_mx0 scaler0.
set T := qmx r'.+1 r'.+1 t Tz; set W := qmx r'.+1 m w Wz.
have S : (lags T W 0 D n <= mxvec D)%MS.
  apply/row_subP => i; rewrite row_lags; case: i => [[|d] lt] /=.
    by rewrite mul0mx add0r submx_refl.
  by rewrite !mul0mx linear0 sub0mx.
apply: leq_trans (mxrankS S) _.
case/orP: kk => [k1 | /zzeroP Dz0]; first exact: leq_trans (rank_leq_row _) k1.
by rewrite /qmx Dz0 map_mx0 scaler0 linear0 mxrank0.
Qed.

(** The head count for every length from [lo] on, and at one length. *)
Theorem head_count_from P lo k route DS RS CS X :
  shapes_ok N' p' m' Az Bz Cz Dz ->
  lower_check P lo k route DS RS CS X -> (forall n, \rank (lags A B C D n) <= k)%nat ->
  forall n, (lo <= n)%nat -> \rank (lags A B C D n) = k.
Proof.
move=> _ L U n le; apply/eqP; rewrite eqn_leq U /=.
apply: leq_trans (rank_lower_mod L) _; apply: mxrankS; exact: lags_monotone.
Qed.

Theorem head_count_at P n k route DS RS CS X :
  shapes_ok N' p' m' Az Bz Cz Dz ->
  lower_check P n k route DS RS CS X -> (\rank (lags A B C D n) <= k)%nat ->
  \rank (lags A B C D n) = k.
Proof. by move=> _ L U; apply/eqP; rewrite eqn_leq U (rank_lower_mod L). Qed.

(** The head count for every length from [lo] to [hi], given an upper bound up to [hi]. *)
Theorem head_count_between P lo hi k route DS RS CS X :
  shapes_ok N' p' m' Az Bz Cz Dz ->
  lower_check P lo k route DS RS CS X ->
  (forall n, (n <= hi)%nat -> (\rank (lags A B C D n) <= k)%nat) ->
  forall n, (lo <= n <= hi)%nat -> \rank (lags A B C D n) = k.
Proof.
move=> _ L U n /andP [le ge]; apply/eqP; rewrite eqn_leq (U n ge) /=.
apply: leq_trans (rank_lower_mod L) _; apply: mxrankS; exact: lags_monotone.
Qed.

End Reflect.
