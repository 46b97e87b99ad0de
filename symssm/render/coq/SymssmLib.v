(** * symssm: generic lemmas for head-count certificates

    The lag operators of a linear SSM [h_i = A h_(i-1) + B x_i, y_i = C h_i + D x_i] are
    [L_0 = C B + D] and [L_d = C A^d B]; the head count on length-[n] sequences is the dimension
    of their span, [\rank (lags n)], where row [d] of [lags n] is [mxvec L_d].  These lemmas are
    proved once, for every field; a certificate's file instantiates them with its own matrices. *)
Set Warnings "-notation-overridden,-ambiguous-paths,-notation-incompatible-prefix".
From mathcomp Require Import all_ssreflect all_algebra.

Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.

Import GRing.Theory.
Local Open Scope ring_scope.

Section Lags.

Variables (F : fieldType) (N' p m : nat).
Local Notation N := N'.+1.
Variables (A : 'M[F]_N) (B : 'M[F]_(N, m)) (C : 'M[F]_(p, N)) (D : 'M[F]_(p, m)).

(** The lag operators and the matrix whose rows are [L_0 .. L_(n-1)], flattened. *)
Definition lag (d : nat) : 'M[F]_(p, m) := if d is 0 then C *m B + D else C *m A ^+ d *m B.
Definition lags (n : nat) : 'M[F]_(n, p * m) := \matrix_(i < n) mxvec (lag i).

Lemma row_lags n (i : 'I_n) : row i (lags n) = mxvec (lag i).
Proof. by rewrite rowK. Qed.

Lemma lag_sub_lags n d : (d < n)%N -> (mxvec (lag d) <= lags n)%MS.
Proof. by move=> lt; rewrite -(row_lags (Ordinal lt)); apply: row_sub. Qed.

Lemma lags_monotone n n' : (n <= n')%N -> (lags n <= lags n')%MS.
Proof.
move=> le; apply/row_subP => i; rewrite row_lags; apply: lag_sub_lags.
exact: leq_trans (ltn_ord i) le.
Qed.

(** Cayley-Hamilton: every lag lies in the span of [L_0 .. L_N]. *)
Lemma degree_le : (degree_mxminpoly A <= N)%N.
Proof.
have := dvdp_leq (monic_neq0 (char_poly_monic A)) (mxminpoly_dvd_char A).
by rewrite size_mxminpoly size_char_poly.
Qed.

Lemma lag_tail d : (mxvec (lag d) <= lags N.+1)%MS.
Proof.
case: d => [|d]; first exact: lag_sub_lags.
have := horner_mx_mem A 'X^d; rewrite rmorphX /= horner_mx_X => /submxP [x Hx].
have HA : A ^+ d.+1 = A *m \sum_(i < degree_mxminpoly A) x 0 i *: A ^+ i.
  rewrite exprS mulmxE; congr (_ * _).
  rewrite -[A ^+ d]mxvecK Hx mulmx_sum_row linear_sum /=.
  by apply: eq_bigr => i _; rewrite linearZ /= rowK mxvecK.
rewrite /= HA !mulmx_sumr mulmx_suml linear_sum /= summx_sub // => i _.
rewrite -!scalemxAr -scalemxAl linearZ /= scalemx_sub //.
have -> : C *m (A *m A ^+ i) *m B = lag i.+1 by rewrite /= mulmxE -exprS.
apply: lag_sub_lags; rewrite ltnS; exact: leq_trans (ltn_ord i) degree_le.
Qed.

Lemma lags_tail n : (lags n <= lags N.+1)%MS.
Proof. by apply/row_subP => i; rewrite row_lags; apply: lag_tail. Qed.

End Lags.

(** * Ranks of stacked matrices *)
Section Stack.

Variables (F : fieldType) (p m : nat).

Definition stack (f : nat -> 'M[F]_(p, m)) (n : nat) : 'M[F]_(n, p * m) := \matrix_(i < n) mxvec (f i).

Lemma row_stack (f : nat -> 'M[F]_(p, m)) n (i : 'I_n) : row i (stack f n) = mxvec (f i).
Proof. by rewrite rowK. Qed.

(** A nonsingular k x k minor (rows: the matrices [f (ds s)], columns: entries [(rs t, cs t)])
    gives [k] independent rows. *)
Lemma rank_lower (f : nat -> 'M[F]_(p, m)) n k (ds : 'I_k -> nat) (rs : 'I_k -> 'I_p) (cs : 'I_k -> 'I_m) :
  (forall s, ds s < n)%N ->
  \matrix_(s, t) f (ds s) (rs t) (cs t) \in unitmx ->
  (k <= \rank (stack f n))%N.
Proof.
move=> lt unit.
set X : 'M[F]_(k, p * m) := \matrix_(s < k) mxvec (f (ds s)).
set Y : 'M[F]_(p * m, k) := \matrix_(j, t) (j == mxvec_index (rs t) (cs t))%:R.
have WXY : \matrix_(s, t) f (ds s) (rs t) (cs t) = X *m Y.
  apply/matrixP => s t; rewrite !mxE (bigD1 (mxvec_index (rs t) (cs t))) //= big1.
    by rewrite !mxE eqxx mulr1 addr0 mxvecE.
  by move=> j /negbTE nj; rewrite !mxE nj mulr0.
have sX : (X <= stack f n)%MS.
  apply/row_subP => s; rewrite rowK -(row_stack f (Ordinal (lt s))); exact: row_sub.
rewrite -(mxrank_unit unit) WXY.
exact: leq_trans (mxrankM_maxl _ _) (mxrankS sX).
Qed.

Lemma rank_upper (f : nat -> 'M[F]_(p, m)) n k (X : 'M[F]_(k, p * m)) :
  (forall d, (d < n)%N -> (mxvec (f d) <= X)%MS) -> (\rank (stack f n) <= k)%N.
Proof.
move=> H; apply: leq_trans (rank_leq_row X); apply: mxrankS.
by apply/row_subP => i; rewrite row_stack; apply: H.
Qed.

End Stack.

(** * Integer matrices as lists of binary integers, computed by [vm_compute]

    [zmx m n s] reads the list [s] as an [m x n] matrix over [int]; [zshape m n s] says that [s]
    has exactly [m] rows of exactly [n] entries, and every theorem a certificate's file applies
    asks it of the system's four lists (so a list of another shape does not build).
    The list operations below are proved to agree with mathcomp's, so a boolean check
    computed on lists is a statement about the matrices. *)
From Coq Require Import ZArith.
From CoqEAL Require Import binrat. (* Z2int : Z -> int and its morphism lemmas, closed *)

Section ZLists.

Definition zseq := seq (seq Z).
Definition zget (s : zseq) (i j : nat) : Z := nth Z0 (nth [::] s i) j.
Definition zmx (m n : nat) (s : zseq) : 'M[int]_(m, n) := \matrix_(i, j) Z2int (zget s i j).
Definition ztab (m n : nat) (f : nat -> nat -> Z) : zseq := [seq [seq f i j | j <- iota 0 n] | i <- iota 0 m].
Definition zdot (k : nat) (f g : nat -> Z) : Z := foldr (fun j acc => (f j * g j + acc)%Z) Z0 (iota 0 k).
Definition zmul (m k n : nat) (s t : zseq) : zseq :=
  ztab m n (fun i j => zdot k (fun l => zget s i l) (fun l => zget t l j)).
Definition zadd (m n : nat) (s t : zseq) : zseq := ztab m n (fun i j => (zget s i j + zget t i j)%Z).
Definition zscale (m n : nat) (a : Z) (s : zseq) : zseq := ztab m n (fun i j => (a * zget s i j)%Z).
Definition zid (n : nat) : zseq := ztab n n (fun i j => if i == j then 1%Z else 0%Z).
Definition zpow (n : nat) (s : zseq) (d : nat) : zseq := ssrnat.iter d (zmul n n n s) (zid n).
Definition zshape (m n : nat) (s : zseq) : bool := (size s == m) && all (fun r => size r == n) s.
Definition zeqb (m n : nat) (s t : zseq) : bool :=
  all (fun i => all (fun j => Z.eqb (zget s i j) (zget t i j)) (iota 0 n)) (iota 0 m).

Lemma zget_tab m n f i j : (i < m)%nat -> (j < n)%nat -> zget (ztab m n f) i j = f i j.
Proof.
move=> lti ltj; rewrite /zget /ztab (nth_map 0%nat) ?size_iota // nth_iota // add0n.
by rewrite (nth_map 0%nat) ?size_iota // nth_iota.
Qed.

Lemma zmx_tab m n f : zmx m n (ztab m n f) = \matrix_(i, j) Z2int (f i j).
Proof. by apply/matrixP => i j; rewrite !mxE zget_tab. Qed.

Lemma Z2int_dot k f g : Z2int (zdot k f g) = \sum_(l < k) Z2int (f l) * Z2int (g l).
Proof.
rewrite /zdot -(big_mkord xpredT (fun l => Z2int (f l) * Z2int (g l))) /index_iota subn0.
elim: (iota 0 k) => [|x r IH]; first by rewrite big_nil.
by rewrite big_cons /= Z2int_add Z2int_mul IH.
Qed.

Lemma zmx_mul m k n s t : zmx m n (zmul m k n s t) = zmx m k s *m zmx k n t.
Proof.
apply/matrixP => i j; rewrite /zmul zmx_tab !mxE Z2int_dot.
by apply: eq_bigr => l _; rewrite !mxE.
Qed.

Lemma zmx_add m n s t : zmx m n (zadd m n s t) = zmx m n s + zmx m n t.
Proof. by apply/matrixP => i j; rewrite /zadd zmx_tab !mxE Z2int_add. Qed.

Lemma zmx_scale m n a s : zmx m n (zscale m n a s) = Z2int a *: zmx m n s.
Proof. by apply/matrixP => i j; rewrite /zscale zmx_tab !mxE Z2int_mul. Qed.

Lemma zmx_id n : zmx n n (zid n) = 1%:M.
Proof.
apply/matrixP => i j; rewrite /zid zmx_tab !mxE.
have -> : (nat_of_ord i == nat_of_ord j) = (i == j) by [].
by case: (i == j).
Qed.

Lemma zmx_pow N' s d : zmx N'.+1 N'.+1 (zpow N'.+1 s d) = zmx N'.+1 N'.+1 s ^+ d.
Proof.
elim: d => [|d IH]; first by rewrite /zpow /= zmx_id.
by rewrite /zpow iterS -/(zpow _ _ _) zmx_mul IH exprS mulmxE.
Qed.

Lemma zeqbP m n s t : zeqb m n s t -> zmx m n s = zmx m n t.
Proof.
move=> /allP H; apply/matrixP => i j; rewrite !mxE.
have Hi : (nat_of_ord i \in iota 0 m) by rewrite mem_iota add0n ltn_ord.
have Hj : (nat_of_ord j \in iota 0 n) by rewrite mem_iota add0n ltn_ord.
by move: (H i Hi) => /allP /(_ j Hj) /Z.eqb_eq ->.
Qed.

End ZLists.

(** * A rational system given by integer matrices and denominators *)
Section Certificate.

Local Notation intr := (fun x : int => x%:~R : rat).

(** [qmx m n den s] is the rational matrix [s / den]. *)
Definition qmx (m n : nat) (den : Z) (s : zseq) : 'M[rat]_(m, n) :=
  ((Z2int den)%:~R)^-1 *: map_mx intr (zmx m n s).

Variables (N' p' m' : nat).
Local Notation N := N'.+1.
Local Notation p := p'.+1.
Local Notation m := m'.+1.
Variables (a b c e : Z) (Az Bz Cz Dz : zseq).
Local Notation A := (qmx N N a Az).
Local Notation B := (qmx N m b Bz).
Local Notation C := (qmx p N c Cz).
Local Notation D := (qmx p m e Dz).

(** The lags scaled to integers: [L_0 = (e C B + c b D) / (c b e)], [L_d = C A^d B / (c a^d b)]. *)
Definition zlag (d : nat) : zseq :=
  if d is 0 then zadd p m (zscale p m e (zmul p N m Cz Bz)) (zscale p m (c * b) Dz)
  else zmul p N m (zmul p N N Cz (zpow N Az d)) Bz.
Definition glag (d : nat) : 'M[rat]_(p, m) := map_mx intr (zmx p m (zlag d)).

Definition dens_ok : bool := [&& ~~ Z.eqb a 0, ~~ Z.eqb b 0, ~~ Z.eqb c 0 & ~~ Z.eqb e 0].

(** The system's lists have the shapes its matrices are read at: [N x N], [N x m], [p x N], [p x m]. *)
Definition shapes_ok : bool := [&& zshape N N Az, zshape N m Bz, zshape p N Cz & zshape p m Dz].

Lemma intr_neq0 (z : Z) : ~~ Z.eqb z 0 -> (Z2int z)%:~R != 0 :> rat.
Proof.
move=> nz; rewrite intr_eq0; apply: contra nz => /eqP h.
by apply/Z.eqb_eq; apply: Z2int_inj; rewrite h.
Qed.

Lemma lag_scaled d : dens_ok -> exists2 k : rat, k != 0 & lag A B C D d = k *: glag d.
Proof.
case/and4P => na nb nc ne.
have ia := intr_neq0 na; have ib := intr_neq0 nb; have ic := intr_neq0 nc; have ie := intr_neq0 ne.
rewrite /glag /lag /zlag /qmx; case: d => [|d].
  exists (((Z2int c)%:~R * (Z2int b)%:~R * (Z2int e)%:~R)^-1); first by rewrite invr_eq0 !mulf_neq0.
  rewrite zmx_add !zmx_scale !zmx_mul Z2int_mul !map_mxD !map_mxZ !map_mxM /=.
  rewrite -!scalemxAl -!scalemxAr !scalerA scalerDr !scalerA.
  congr (_ *: _ + _ *: _); first by rewrite invfM mulfVK // invfM.
  by rewrite intrM invfM mulrC mulVKf // mulf_neq0.
exists (((Z2int c)%:~R * (Z2int a)%:~R ^+ d.+1 * (Z2int b)%:~R)^-1).
  by rewrite invr_eq0 !mulf_neq0 // expf_neq0.
rewrite !zmx_mul zmx_pow !map_mxM /= exprZn -!scalemxAl -!scalemxAr !scalerA.
rewrite (rmorphX (map_mx_rmorphism _ _)) /= -scalemxAl scalerA mulmxE -exprS.
by congr (_ *: _); rewrite !invfM exprVn mulrAC.
Qed.

(** ** What a certificate's file checks by computation *)
Definition zminor (j : nat) (DS RS CS : seq nat) : zseq :=
  ztab j j (fun s t => zget (zlag (nth 0%nat DS s)) (nth 0%nat RS t) (nth 0%nat CS t)).
Definition zzero : zseq := ztab p m (fun _ _ => 0%Z).
Definition zlin (DS : seq nat) (P : seq Z) (L : seq nat) : zseq :=
  foldr (fun h acc => zadd p m (zscale p m (nth 0%Z P h) (zlag (nth 0%nat DS h))) acc) zzero L.
(** [(d, q, P)]: [q L_d = sum_h P_h L_(DS_h)] over integers, with [q != 0] and [P] over the first [j] witnesses. *)
Definition ident_ok (DS : seq nat) (j d : nat) (t : nat * Z * seq Z) : bool :=
  let: (d', q, P) := t in
  [&& d' == d, ~~ Z.eqb q 0, (size P <= j)%nat & zeqb p m (zscale p m q (zlag d)) (zlin DS P (iota 0 (size P)))].
Definition covered DS j ids d : bool := (d \in take j DS) || has (ident_ok DS j d) ids.

Definition rank_checks (n j : nat) (DS RS CS : seq nat) (adj : zseq) (det : Z) (ids : seq (nat * Z * seq Z)) :=
  [&& dens_ok, (j <= size DS)%nat, (j <= size RS)%nat, (j <= size CS)%nat,
      all (fun r => r < p)%nat (take j RS), all (fun c => c < m)%nat (take j CS),
      all (fun d => d < n)%nat (take j DS), ~~ Z.eqb det 0,
      zeqb j j (zmul j j j (zminor j DS RS CS) adj) (zscale j j det (zid j))
    & all (covered DS j ids) (iota 0 (minn n N.+1))].

Lemma rank_stack_scaled (f g : nat -> 'M[rat]_(p, m)) n :
  (forall d, exists2 k : rat, k != 0 & f d = k *: g d) -> \rank (stack f n) = \rank (stack g n).
Proof.
move=> H; apply/eqmx_rank/andP; split; apply/row_subP => i; rewrite row_stack;
  have [k nk E] := H i.
  by rewrite E linearZ /= scalemx_sub // -row_stack row_sub.
have -> : g i = k^-1 *: f i by rewrite E scalerA mulVf ?scale1r.
by rewrite linearZ /= scalemx_sub // -row_stack row_sub.
Qed.

Definition witnesses (DS : seq nat) (j : nat) : 'M[rat]_(j, p * m) := \matrix_(s < j) mxvec (glag (nth 0%nat DS s)).

Lemma has_witness (T : Type) (f : pred T) (l : seq T) : has f l -> exists x, f x.
Proof. by elim: l => //= x l IH /orP [fx | /IH]; [exists x | ]. Qed.

Lemma zlin_sub DS P L j :
  all (fun h => h < j)%nat L -> (mxvec (map_mx intr (zmx p m (zlin DS P L))) <= witnesses DS j)%MS.
Proof.
elim: L => [|h L IH] /=.
  by rewrite /zlin /zzero zmx_tab; rewrite (_ : \matrix_(i, j) _ = 0) ?map_mx0 ?linear0 ?sub0mx //;
     apply/matrixP => r0 c0; rewrite !mxE.
case/andP => lth /IH sL; rewrite zmx_add map_mxD linearD /= addmx_sub // zmx_scale map_mxZ linearZ /=.
rewrite scalemx_sub // -/(glag _).
by rewrite -(rowK (fun s : 'I_j => mxvec (glag (nth 0%nat DS s))) (Ordinal lth)) row_sub.
Qed.

Lemma covered_sub DS j ids d : covered DS j ids d -> (mxvec (glag d) <= witnesses DS j)%MS.
Proof.
case/orP => [dj | Hhas]; last first.
  have [[[d' q] P]] := has_witness Hhas.
  rewrite /ident_ok => /and4P [/eqP dd nq sP /zeqbP E]; rewrite -dd {dd} in E *.
  have iq := intr_neq0 nq.
  have -> : glag d' = ((Z2int q)%:~R)^-1 *: map_mx intr (zmx p m (zlin DS P (iota 0 (size P)))).
    by rewrite -E zmx_scale map_mxZ /= scalerA mulVf ?scale1r.
  rewrite linearZ /= scalemx_sub // zlin_sub //; apply/allP => h.
  by rewrite mem_iota add0n => /leq_trans; apply.
  have lts : (index d (take j DS) < j)%nat.
    have szj : (size (take j DS) <= j)%nat.
      by rewrite size_take; case: ifP => // /negbT; rewrite -leqNgt.
    by apply: leq_trans szj; rewrite index_mem.
  have dE : nth 0%nat DS (index d (take j DS)) = d.
    by rewrite -(nth_take 0%nat lts) nth_index.
by rewrite -dE -(rowK (fun s : 'I_j => mxvec (glag (nth 0%nat DS s))) (Ordinal lts)) row_sub.
Qed.

Theorem rank_lags n j DS RS CS adj det ids :
  shapes_ok -> rank_checks n j DS RS CS adj det ids -> \rank (lags A B C D n) = j.
Proof.
move=> _; case/and5P => dok jDS jRS jCS /and5P [rRS cCS nDS ndet /andP [/zeqbP Einv cov]].
have scaled := fun d => lag_scaled d dok.
have -> : \rank (lags A B C D n) = \rank (stack glag n) by apply: rank_stack_scaled.
apply/eqP; rewrite eqn_leq; apply/andP; split.
  (* upper bound: every lag lies in the span of the first j witnesses *)
  apply: leq_trans (rank_leq_row (witnesses DS j)); apply: mxrankS; apply/row_subP => i.
  rewrite row_stack.
  have covN d : (d < minn n N.+1)%nat -> (mxvec (glag d) <= witnesses DS j)%MS.
    by move=> ltd; apply: covered_sub; apply: (allP cov); rewrite mem_iota add0n.
  case: (ltnP i N.+1) => iN; first by apply: covN; rewrite leq_min ltn_ord.
  have [k nk E] := scaled i.
  have -> : glag i = k^-1 *: lag A B C D i by rewrite E scalerA mulVf ?scale1r.
  rewrite linearZ /= scalemx_sub //; apply: submx_trans (lag_tail _ _ _ _ i) _.
  apply/row_subP => i'; rewrite row_lags; have [k' nk' ->] := scaled i'.
  rewrite linearZ /= scalemx_sub // covN // leq_min ltn_ord andbT.
  exact: leq_trans (ltn_ord i') (leq_trans iN (ltnW (ltn_ord i))).
(* lower bound: the j x j minor is nonsingular *)
pose ds := fun s : 'I_j => nth 0%nat DS s.
pose rs := fun t : 'I_j => inord (nth 0%nat RS t) : 'I_p.
pose cs := fun t : 'I_j => inord (nth 0%nat CS t) : 'I_m.
have sztake (T : Type) (l : seq T) : (j <= size l)%nat -> size (take j l) = j.
  by move=> jl; rewrite size_take; case: ltngtP jl => // /eqP; rewrite eqn_leq => /andP [].
have inj s : (s < j)%nat -> (nth 0%nat (take j RS) s < p)%nat * (nth 0%nat (take j CS) s < m)%nat.
  move=> ltsj; split.
    by apply: (allP rRS); rewrite mem_nth // sztake.
  by apply: (allP cCS); rewrite mem_nth // sztake.
have M_E : \matrix_(s, t) glag (ds s) (rs t) (cs t) = map_mx intr (zmx j j (zminor j DS RS CS)).
  apply/matrixP => s t; rewrite /zminor zmx_tab !mxE /rs /cs.
  have [rlt clt] := inj t (ltn_ord t); rewrite !nth_take // in rlt clt.
  by rewrite !inordK.
apply: (rank_lower (ds := ds) (rs := rs) (cs := cs)).
  by move=> s; apply: (allP nDS); rewrite /ds -(nth_take 0%nat (ltn_ord s)) mem_nth // sztake.
rewrite M_E; have idet := intr_neq0 ndet.
have inv : map_mx intr (zmx j j (zminor j DS RS CS)) *m (((Z2int det)%:~R)^-1 *: map_mx intr (zmx j j adj)) = 1%:M.
  rewrite -scalemxAr -map_mxM -zmx_mul Einv zmx_scale zmx_id map_mxZ /= map_mx1.
  by rewrite scalerA mulVf ?scale1r.
by case: (mulmx1_unit inv).
Qed.

(** The same for every length from [n0] on: the checks no longer mention [n]. *)
Definition rank_checks_from (n0 j : nat) (DS RS CS : seq nat) (adj : zseq) (det : Z)
    (ids : seq (nat * Z * seq Z)) :=
  [&& dens_ok, (j <= size DS)%nat, (j <= size RS)%nat, (j <= size CS)%nat,
      all (fun r => r < p)%nat (take j RS), all (fun c => c < m)%nat (take j CS),
      all (fun d => d < n0)%nat (take j DS), ~~ Z.eqb det 0,
      zeqb j j (zmul j j j (zminor j DS RS CS) adj) (zscale j j det (zid j))
    & all (covered DS j ids) (iota 0 N.+1)].

Theorem rank_lags_from n0 j DS RS CS adj det ids :
  shapes_ok -> rank_checks_from n0 j DS RS CS adj det ids ->
  forall n, (n0 <= n)%nat -> \rank (lags A B C D n) = j.
Proof.
move=> sh H n le; apply: (rank_lags (DS := DS) (RS := RS) (CS := CS) (adj := adj) (det := det) (ids := ids) sh); move: H.
rewrite /rank_checks_from /rank_checks.
case/and5P => -> -> -> -> /and5P [-> -> nDS -> /andP [-> cov]] /=; apply/andP; split.
  by apply/allP => d /(allP nDS) dn; exact: leq_trans dn le.
apply/allP => d; rewrite mem_iota add0n leq_min => /andP [_ /andP [_ ltd]].
by apply: (allP cov); rewrite mem_iota add0n ltd.
Qed.

(** The same for every length from [lo] to [hi]. *)
Theorem rank_lags_between lo hi j DS RS CS adj det ids :
  shapes_ok -> rank_checks lo j DS RS CS adj det ids -> all (covered DS j ids) (iota 0 (minn hi N.+1)) ->
  forall n, (lo <= n <= hi)%nat -> \rank (lags A B C D n) = j.
Proof.
move=> sh H cov n /andP [le ge].
apply: (rank_lags (DS := DS) (RS := RS) (CS := CS) (adj := adj) (det := det) (ids := ids) sh); move: H.
rewrite /rank_checks.
case/and5P => -> -> -> -> /and5P [-> -> nDS -> /andP [-> _]] /=; apply/andP; split.
  by apply/allP => d /(allP nDS) dn; exact: leq_trans dn le.
apply/allP => d; rewrite mem_iota add0n leq_min => /andP [_ /andP [ltn ltN]].
apply: (allP cov); rewrite mem_iota add0n leq_min ltN andbT.
exact: leq_trans ltn ge.
Qed.

End Certificate.
